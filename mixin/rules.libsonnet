// Recording rules. The dashboards read the first and the last; every one keeps the cluster label.
{
  // The names of the recording rules, for the dashboards.
  _records:: {
    pods: 'namespace_tidb_cluster_class:podwait_waiting_pods:sum',
    oldest: 'namespace_tidb_cluster_class:podwait_waiting_oldest_seconds:max',
    classPods: 'class:podwait_waiting_pods:sum',
    stage: 'component_stage_class_le:podwait_stage_duration_seconds_bucket:rate%s'
           % $._config.stageDurationRateWindow,
    operatorAbnormal: 'namespace_tidb_cluster_v2_instance:tidb_operator_abnormal_instance:max',
  },

  prometheusRules+:: {
    local c = $._config,
    local by(labels) = std.join(', ', [c.clusterLabel] + labels),
    // tidb-operator v2's tidb_operator_abnormal_instance{namespace, cluster, component, group,
    // instance, condition} in podwait's words: the instance as v2_instance (`exported_instance`
    // when the scrape renamed it, as honor_labels: false does), the namespace likewise, and
    // tidb_cluster "<namespace>-<name>" as podwait's. Its `cluster` label is the TiDB cluster's
    // name and collides with the Kubernetes cluster label; three shapes are read:
    //  - relabelled at scrape time into tidb_cluster_name (rules/README.md's recipe): the
    //    cluster label, if any, is the Kubernetes cluster's and is kept;
    //  - renamed exported_cluster by a scrape whose targets carry a cluster label: likewise;
    //  - as the operator writes it: `cluster` is the TiDB cluster's name, so it is dropped here
    //    (the external label, if any, is added again to the alert and to remote write).
    local operatorSeries(sel) =
      'label_replace(label_replace(label_replace(
'
      + '  tidb_operator_abnormal_instance{%s},
' % sel
      + '  "v2_instance", "$1", "instance", "(.*)"),
'
      + '  "v2_instance", "$1", "exported_instance", "(.+)"),
'
      + '  "namespace", "$1", "exported_namespace", "(.+)")',
    local indent(text, n) =
      local pad = std.repeat(' ', n);
      std.join('\n', [if l == '' then l else pad + l for l in std.split(text, '\n')]),
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
            record: $._records.operatorAbnormal,
            expr: |||
              max by (%(by)s) (
                label_join(
              %(relabelled)s,
                  "tidb_cluster", "-", "namespace", "tidb_cluster_name")
                or
                label_join(
              %(renamed)s,
                  "tidb_cluster", "-", "namespace", "exported_cluster")
                or
                label_replace(label_join(
              %(raw)s,
                  "tidb_cluster", "-", "namespace", "cluster"),
                  "cluster", "", "cluster", ".*")
              )
            ||| % {
              by: by(['namespace', 'tidb_cluster', 'component', 'group', 'v2_instance', 'condition']),
              relabelled: indent(operatorSeries('tidb_cluster_name!=""'), 4),
              renamed: indent(operatorSeries('tidb_cluster_name="", exported_cluster!=""'), 4),
              raw: indent(operatorSeries('tidb_cluster_name="", exported_cluster=""'), 4),
            },
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
