// Recording rules. The dashboards read the first and the last; every one keeps the cluster label.
{
  // The names of the recording rules, for the dashboards.
  _records:: {
    pods: 'namespace_tidb_cluster_class:podwait_waiting_pods:sum',
    oldest: 'namespace_tidb_cluster_class:podwait_waiting_oldest_seconds:max',
    classPods: 'class:podwait_waiting_pods:sum',
    stage: 'component_stage_class_le:podwait_stage_duration_seconds_bucket:rate%s'
           % $._config.stageDurationRateWindow,
  },

  prometheusRules+:: {
    local c = $._config,
    local by(labels) = std.join(', ', [c.clusterLabel] + labels),
    groups+: [
      {
        name: 'podwait.rules',
        rules: [
          {
            record: $._records.pods,
            expr: 'sum by (%s) (podwait_waiting_pods)' % by(['namespace', 'tidb_cluster', 'class']),
          },
          {
            record: $._records.oldest,
            expr: 'max by (%s) (podwait_waiting_oldest_seconds)'
                  % by(['namespace', 'tidb_cluster', 'class']),
          },
          {
            record: $._records.classPods,
            expr: 'sum by (%s) (podwait_waiting_pods)' % by(['class']),
          },
          {
            record: $._records.stage,
            expr: |||
              sum by (%s) (
                rate(podwait_stage_duration_seconds_bucket[%s])
              )
            ||| % [by(['component', 'stage', 'class', 'le']), c.stageDurationRateWindow],
          },
        ],
      },
    ],
  },
}
