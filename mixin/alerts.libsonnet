// Alerting rules. Every alert links to its section of rules/RUNBOOK.md (runbookURLPattern, by
// default the runbook the exporter serves at /runbook).
{
  prometheusAlerts+:: {
    local c = $._config,
    local runbookURL(name) =
      local url = c.runbookURLPattern % std.asciiLower(name);
      assert std.startsWith(url, 'https://') || std.startsWith(url, 'http://') :
             'runbookURLPattern must give an absolute http(s) URL (a relative link opens nothing '
             + 'in a notification), got "%s"' % url;
      url,
    local cl = c.clusterLabel,
    local by(labels) = std.join(', ', [cl] + labels),
    local podLabels = by(['namespace', 'tidb_cluster', 'component', 'pod', 'stage', 'class', 'reason']),

    // An alert with its severity, durations and runbook from _config.alerts.
    local alert(name, expr, summary, description) =
      local t = c.alerts[name];
      {
      alert: name,
      expr: expr,
      labels: { severity: t.severity },
      annotations: {
        summary: summary,
        description: description,
        runbook_url: runbookURL(name),
      },
    } + (if t['for'] != '' then { 'for': t['for'] } else {})
      + (if t.keepFiringFor != '' then { keep_firing_for: t.keepFiringFor } else {}),

    // The per-pod alerts: one series per waiting pod of `class`.
    local podAlert(name, class, summary, tail) = alert(
      name,
      |||
        max by (%s) (
          podwait_pod_waiting_seconds{class="%s"}
        )
      ||| % [podLabels, class],
      summary,
      'Pod {{ $labels.namespace }}/{{ $labels.pod }} ({{ $labels.component }} of TiDB cluster '
      + '{{ $labels.tidb_cluster }}) has been {{ $labels.stage }} for {{ $value | humanizeDuration }}'
      + tail,
    ),

    // tidb-operator's StatefulSets are <cluster>-<component>, their pods <statefulset>-<ordinal>.
    local indent(text, n) =
      local pad = std.repeat(' ', n);
      std.join('\n', [if l == '' then l else pad + l for l in std.split(std.rstripChars(text, '\n'), '\n')]),
    local stsOf(inner) =
      'label_replace(\n' + indent(inner, 2) + ',\n  "statefulset", "$1", "pod", "(.+)-[0-9]+"\n)',
    local stsKey = by(['namespace', 'tidb_cluster', 'component', 'statefulset']),
    local podKey = by(['namespace', 'tidb_cluster', 'component', 'pod']),

    groups+: [
      {
        name: 'podwait.alerts',
        rules: [
          podAlert(
            'PodCapacityShortfall',
            'capacity',
            'A TiDB pod cannot be scheduled for lack of capacity and nothing is adding nodes.',
            ': class {{ $labels.class }}, reason {{ $labels.reason }}. No autoscaler is adding a node '
            + 'that would fit it (none present, limit reached, backoff, or scale-up timed out).',
          ),
          podAlert(
            'PodScaleUpTooSlow',
            'scale_up',
            'An autoscaler has been adding a node for a TiDB pod for too long.',
            ' while an autoscaler provisions capacity for it (class {{ $labels.class }}, reason '
            + '{{ $labels.reason }}). The node is late; the pod turns capacity-short at the '
            + 'provision timeout.',
          ),
          podAlert(
            'PodUnschedulableConstraints',
            'constraints',
            'A TiDB pod cannot be scheduled because of constraints that more nodes cannot fix.',
            ': class {{ $labels.class }}, reason {{ $labels.reason }}. Affinity, selectors, taints or '
            + 'volumes rule out every node; adding nodes of the same kind will not help.',
          ),
          podAlert(
            'PodVolumeOrSandboxStuck',
            'volume',
            'A TiDB pod cannot start: a volume cannot be attached or mounted, or its sandbox cannot be created.',
            ': class {{ $labels.class }}, reason {{ $labels.reason }}. None of its containers has '
            + 'started past the volume grace (a volume still attached to another node, a mount '
            + 'timeout, a CNI or runtime error).',
          ),
          podAlert(
            'PodStuckAfterDependencyReady',
            'dependency_stuck',
            'A TiDB pod still waits on its dependency although the dependency is ready.',
            ' (class {{ $labels.class }}, reason {{ $labels.reason }}) although PD/TiKV became ready '
            + 'a while ago. Its wait is no longer explained by the dependency.',
          ),
          // tidb-operator v2 holds the pod on purpose (a PD mode switch, leaders evicted before a
          // restart, a store offline) longer than the exporter's grace for it.
          podAlert(
            'PodPlannedWaitStuck',
            'planned_stuck',
            'A planned wait of tidb-operator v2 (PD mode switch, leader eviction, store offline) has not ended.',
            ': class {{ $labels.class }}, reason {{ $labels.reason }}. The operator started it on '
            + 'purpose, but it has outlasted its grace: look at the operator, not at the pod.',
          ),
          // spec.paused stops every controller of the cluster: a pod that dies is not replaced, a
          // scale or upgrade does not happen. Fine for a maintenance window, not for days.
          alert(
            'TiDBClusterPausedTooLong',
            |||
              max by (%s) (
                podwait_cluster_hold{hold="paused"}
              ) == 1
            ||| % by(['namespace', 'tidb_cluster']),
            'A tidb-operator v2 cluster has been paused for a long time; the operator heals nothing while paused.',
            'TiDB cluster {{ $labels.tidb_cluster }} (namespace {{ $labels.namespace }}) has '
            + 'spec.paused set: tidb-operator reconciles none of its instances, so a pod that fails is '
            + 'not replaced. Resume it when the maintenance is over.',
          ),
          // The operator's own gauge (pkg/metrics/metrics.go: 1 while an instance's Ready or
          // Synced condition is False), quiet while podwait says that instance's pod waits as
          // designed: joined exactly on the v2 instance name.
          alert(
            'TiDBOperatorInstanceAbnormal',
            |||
              max by (%(inst)s) (
                namespace_tidb_cluster_v2_instance:tidb_operator_abnormal_instance:max == 1
              )
              unless on (%(join)s)
              max by (%(join)s) (
                podwait_pod_waiting_seconds{class=~"%(expected)s"}
              )
            ||| % {
              inst: by(['namespace', 'tidb_cluster', 'component', 'group', 'v2_instance', 'condition']),
              join: by(['namespace', 'v2_instance']),
              expected: std.join('|', [k.name for k in $._contract.classes if k.expected]),
            },
            'A tidb-operator v2 instance is not Ready or not Synced and podwait does not say its pod waits as designed.',
            '{{ $labels.component }} instance {{ $labels.namespace }}/{{ $labels.v2_instance }} (group '
            + '{{ $labels.group }} of TiDB cluster {{ $labels.tidb_cluster }}) has had {{ $labels.condition }}=False '
            + 'while its pod is Ready or waits for a reason someone must fix (see podwait\'s class for the pod).',
          ),
          // One alert per TiDB cluster and dependency, pointing at PD or TiKV rather than at the
          // pods. The value is the longest current dependency wait of the cluster's pods.
          alert(
            'TiDBDependencyNotReady',
            |||
              max by (%(dep)s) (
                  (podwait_dependency_ready == 0)
                + on (%(tc)s) group_left ()
                  max by (%(tc)s) (
                    podwait_waiting_oldest_seconds{class="dependency"}
                  )
              )
            ||| % { dep: by(['namespace', 'tidb_cluster', 'dependency']), tc: by(['namespace', 'tidb_cluster']) },
            "PD or TiKV of a TiDB cluster is not ready and the cluster's pods wait on it.",
            '{{ if eq $labels.dependency "pd" }}PD{{ else }}TiKV{{ end }} of TiDB cluster '
            + '{{ $labels.tidb_cluster }} (namespace {{ $labels.namespace }}) is not ready; '
            + '{{ with printf "sum(podwait_waiting_pods{%s=%%q,namespace=%%q,tidb_cluster=%%q,class=\\"dependency\\"})" $labels.%s $labels.namespace $labels.tidb_cluster | query }}{{ . | first | value }}{{ else }}some{{ end }}'
              % [cl, cl]
            + ' pod(s) wait on a dependency, the longest for {{ $value | humanizeDuration }}. '
            + 'Fix {{ if eq $labels.dependency "pd" }}PD{{ else }}TiKV{{ end }}, not the waiting pods.',
          ),
          alert(
            'TiDBFailoverDuringDependencyWait',
            |||
              max by (%s) (
                podwait_failover_during_dependency_wait
              ) > 0
            ||| % by(['namespace', 'tidb_cluster', 'component']),
            'tidb-operator recorded a failover for pods that were only waiting on a dependency.',
            'TiDB cluster {{ $labels.tidb_cluster }} (namespace {{ $labels.namespace }}) has '
            + '{{ $value }} {{ $labels.component }} failover member(s) recorded while the pod waited on '
            + 'PD/TiKV. The operator may add replicas that the waiting pods did not need.',
          ),
          // The inhibition sources (alertmanagerInhibitRules). Severity info: route them to a
          // receiver that drops them; they exist so that Alertmanager silences the generic
          // KubePodNotReady / KubeContainerWaiting / KubeStatefulSetReplicasMismatch alerts for
          // pods that wait as designed. No `for`, so they are active before any generic alert.
          podAlert(
            'PodWaitingOnDependency',
            'dependency',
            'A TiDB pod waits on PD/TiKV, as designed.',
            ' waiting on a dependency (class {{ $labels.class }}, reason {{ $labels.reason }}). '
            + 'Generic not-ready alerts for this pod are inhibited.',
          ),
          // tidb-operator v2 holds the pod on purpose: its cluster is paused, suspending or
          // suspended, or a mode switch, leader eviction or store offline is under way within its
          // grace. KubePodNotReady, KubeContainerWaiting and KubePodCrashLooping are expected.
          podAlert(
            'PodWaitingAsPlanned',
            'planned',
            'tidb-operator v2 holds a TiDB pod on purpose (paused, suspended, mode switch, leader eviction, store offline).',
            ' as planned (class {{ $labels.class }}, reason {{ $labels.reason }}). Generic not-ready '
            + 'alerts for this pod are inhibited.',
          ),
          // Active only while every waiting pod of the StatefulSet waits on a dependency, so a
          // StatefulSet with one pod short of capacity keeps its generic replicas-mismatch alert.
          // The value is the longest of those waits.
          alert(
            'StatefulSetWaitingOnDependency',
            |||
              max by (%(sts)s) (
              %(deps)s
              )
              and on (%(sts)s)
              (
                  count by (%(sts)s) (
              %(depsPerPod)s
                  )
                == on (%(sts)s)
                  count by (%(sts)s) (
              %(allPerPod)s
                  )
              )
            ||| % {
              sts: stsKey,
              deps: indent(stsOf('podwait_pod_waiting_seconds{class="dependency", pod=~".+-[0-9]+"}'), 2),
              depsPerPod: indent(stsOf(
                'max by (%s) (\n  podwait_pod_waiting_seconds{class="dependency", pod=~".+-[0-9]+"}\n)' % podKey
              ), 6),
              allPerPod: indent(stsOf(
                'max by (%s) (\n  podwait_pod_waiting_seconds{pod=~".+-[0-9]+"}\n)' % podKey
              ), 6),
            },
            'A TiDB StatefulSet is short of ready replicas because its pods wait on PD/TiKV, as designed.',
            '{{ with printf "count(max by (pod) (podwait_pod_waiting_seconds{%s=%%q,namespace=%%q,tidb_cluster=%%q,pod=~\\"%%s-[0-9]+\\"}))" $labels.%s $labels.namespace $labels.tidb_cluster $labels.statefulset | query }}{{ . | first | value }}{{ else }}Some{{ end }}'
              % [cl, cl]
            + ' pod(s) of StatefulSet {{ $labels.namespace }}/{{ $labels.statefulset }} '
            + '({{ $labels.component }} of TiDB cluster {{ $labels.tidb_cluster }}) wait on a dependency, '
            + 'the longest for {{ $value | humanizeDuration }}. Generic replicas-mismatch alerts for this '
            + 'StatefulSet are inhibited.',
          ),
        ],
      },
      {
        name: 'podwait.exporter',
        rules: [
          alert(
            'PodwaitExporterDown',
            |||
              up{%(sel)s} == 0
              or
              absent(up{%(sel)s})
            ||| % { sel: c.podwaitSelector },
            'podwait-exporter is down or not scraped; waiting-pod alerts and their inhibitions are blind.',
            '{{ with $labels.instance }}podwait-exporter {{ . }} (job {{ $labels.job }}) cannot be '
            + 'scraped{{ else }}No podwait-exporter target is scraped{{ end }}. While it is down the '
            + 'dependency alerts resolve and generic not-ready alerts are no longer inhibited.',
          ),
          // A watch that never synced, or a synced watch that saw nothing (bookmarks included; the
          // API server sends one at least every few minutes) for watchStaleSeconds while it holds
          // objects.
          alert(
            'PodwaitWatchStale',
            |||
              podwait_watch_synced == 0
              or
              (
                (time() - podwait_watch_last_event_timestamp_seconds) > %d
                and podwait_watch_last_event_timestamp_seconds > 0
                and podwait_objects > 0
              )
            ||| % c.watchStaleSeconds,
            "podwait's watch of a Kubernetes resource is not synced or has gone silent.",
            'podwait-exporter {{ $labels.instance }} has a stale {{ $labels.resource }} watch '
            + '(not synced, or no watch event for over %s). Its view of waiting pods may be '
              % (if c.watchStaleSeconds % 60 == 0 then '%d minutes' % (c.watchStaleSeconds / 60)
                 else '%d seconds' % c.watchStaleSeconds)
            + 'out of date.',
          ),
          // The PD API of a cluster does not answer while podwait does not know PD to be down:
          // usually a network policy or TLS problem between podwait and PD. A real PD outage is
          // TiDBDependencyNotReady.
          alert(
            'PodwaitProbeFailing',
            |||
              (
                max by (%(tc)s) (podwait_pd_probe_success) == 0
              )
              unless on (%(tc)s)
              (
                max by (%(tc)s) (podwait_dependency_ready{dependency="pd"}) == 0
              )
              unless on (%(tc)s)
              (
                max by (%(tc)s) (podwait_cluster_hold{hold=~"suspending|suspended"})
              )
            ||| % { tc: by(['namespace', 'tidb_cluster']) },
            'podwait cannot read the PD API of a TiDB cluster whose PD is not known to be down.',
            'PD API probes of TiDB cluster {{ $labels.tidb_cluster }} (namespace {{ $labels.namespace }}) '
            + 'fail while PD is not known to be down. podwait falls back to TidbCluster status or '
            + 'classifies its waiting pods with reason dependency_unknown.',
          ),
          // An autoscaler is present but broken: its status ConfigMap stopped updating, or a pod
          // short of resources got no verdict from it past the silence grace (those pods are
          // also PodCapacityShortfall, reason autoscaler_silent; this alert names the autoscaler).
          alert(
            'AutoscalerSilent',
            |||
              max by (%s) (
                podwait_autoscaler_healthy
              ) == 0
            ||| % by(['kind']),
            'An autoscaler is present but silent: its status stopped updating or it says nothing about unschedulable pods.',
            'Autoscaler {{ $labels.kind }} is detected but not healthy: its status ConfigMap stopped '
            + 'updating, or unschedulable pods short of resources got no verdict from it (reason '
            + 'autoscaler_silent). Pods will not get nodes until it works again.',
          ),
          // --web.config.file changed and cannot be used (garbage, deleted, a certificate that
          // does not load or match its key): podwait serves with the last good config, so a
          // renewed certificate or a changed password has not taken effect. As Prometheus' own
          // PrometheusBadConfig, on the max over 5m so that a reload that recovers by itself
          // within a scrape or two does not page.
          alert(
            'PodwaitWebConfigReloadFailed',
            |||
              max_over_time(podwait_web_config_last_reload_successful{%(sel)s}[5m]) == 0
            ||| % { sel: c.podwaitSelector },
            'podwait-exporter cannot use its changed web config and serves with the last good one.',
            'podwait-exporter {{ $labels.instance }} (job {{ $labels.job }}) failed to reload '
            + '--web.config.file; it keeps serving with the configuration it last loaded, so a new '
            + 'certificate, user or header has not taken effect.',
          ),
        ],
      },
    ],
  },

  // Alertmanager inhibitions: while podwait says a pod waits as designed, the generic not-ready
  // alerts of kubernetes-mixin for exactly that pod / StatefulSet are silenced. `equal` includes
  // the cluster label so that two Kubernetes clusters never silence each other (Alertmanager
  // treats a label missing on both alerts as equal).
  alertmanagerInhibitRules+:: {
    local cl = $._config.clusterLabel,
    inhibit_rules+: [
      // The pod waits on PD/TiKV: KubePodNotReady and KubeContainerWaiting for it are expected.
      {
        source_matchers: ['alertname = PodWaitingOnDependency'],
        target_matchers: ['alertname =~ "KubePodNotReady|KubeContainerWaiting"'],
        equal: ['namespace', 'pod', cl],
      },
      // The pod's main container exits while a dependency it needs is not ready (tidb-operator v2
      // creates every pod at once, so TiKV and TiDB crash-loop until PD answers): podwait
      // classifies that crash loop as `dependency` (a real crash loop, or one that outlives the
      // ready grace, is `crashloop` and raises no source), so KubePodCrashLooping is expected.
      {
        source_matchers: ['alertname = PodWaitingOnDependency'],
        target_matchers: ['alertname = KubePodCrashLooping'],
        equal: ['namespace', 'pod', cl],
      },
      // tidb-operator v2 holds the pod on purpose (PodWaitingAsPlanned): its cluster paused or
      // suspended, a mode switch, leaders evicted, a store offline within their graces.
      {
        source_matchers: ['alertname = PodWaitingAsPlanned'],
        target_matchers: ['alertname =~ "KubePodNotReady|KubeContainerWaiting|KubePodCrashLooping"'],
        equal: ['namespace', 'pod', cl],
      },
      // Every waiting pod of the StatefulSet waits on PD/TiKV: its replicas mismatch is expected.
      {
        source_matchers: ['alertname = StatefulSetWaitingOnDependency'],
        target_matchers: ['alertname = KubeStatefulSetReplicasMismatch'],
        equal: ['namespace', 'statefulset', cl],
      },
      // PD not ready explains TiKV not ready in the same TiDB cluster: page about PD only.
      {
        source_matchers: ['alertname = TiDBDependencyNotReady', 'dependency = pd'],
        target_matchers: ['alertname = TiDBDependencyNotReady', 'dependency = tikv'],
        equal: ['namespace', 'tidb_cluster', cl],
      },
    ],
  },
}
