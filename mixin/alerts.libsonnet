// Alerting rules. Every alert links to its section of rules/RUNBOOK.md (runbookURLPattern, by
// default the runbook the exporter serves at /runbook).
{
  // The per-pod alerts, one row each: the class it is about and the words of its page. `tail`
  // follows "Pod <ns>/<pod> (<component> of TiDB cluster <tc>) has been <stage> for <value>".
  // The rows with severity info are the inhibition sources of the waits that are expected;
  // the others page, once, with the why.
  _podAlertRows:: [
    {
      name: 'PodCapacityShortfall',
      class: 'capacity',
      summary: 'A TiDB pod cannot be scheduled for lack of capacity and nothing is adding nodes.',
      tail: ': class {{ $labels.class }}, reason {{ $reason }}. No autoscaler is adding a node '
            + 'that would fit it (none present, limit reached, backoff, or scale-up timed out).',
    },
    {
      name: 'PodScaleUpTooSlow',
      class: 'scale_up',
      summary: 'An autoscaler has been adding a node for a TiDB pod for too long.',
      tail: ' while an autoscaler provisions capacity for it (class {{ $labels.class }}, reason '
            + '{{ $reason }}). The node is late; the pod turns capacity-short at the '
            + 'provision timeout.',
    },
    {
      name: 'PodUnschedulableConstraints',
      class: 'constraints',
      summary: 'A TiDB pod cannot be scheduled because of constraints that more nodes cannot fix.',
      tail: ': class {{ $labels.class }}, reason {{ $reason }}. Affinity, selectors, taints or '
            + 'volumes rule out every node; adding nodes of the same kind will not help.',
    },
    {
      name: 'PodVolumeOrSandboxStuck',
      class: 'volume',
      summary: 'A TiDB pod cannot start: a volume cannot be attached or mounted, or its sandbox cannot be created.',
      tail: ': class {{ $labels.class }}, reason {{ $reason }}. None of its containers has '
            + 'started past the volume grace (a volume still attached to another node, a mount '
            + 'timeout, a CNI or runtime error).',
    },
    {
      name: 'PodStuckAfterDependencyReady',
      class: 'dependency_stuck',
      summary: 'A TiDB pod still waits on its dependency although the dependency is ready.',
      tail: ' (class {{ $labels.class }}, reason {{ $reason }}) although PD/TiKV became ready '
            + 'a while ago. Its wait is no longer explained by the dependency.',
    },
    // tidb-operator v2 holds the pod on purpose (a PD mode switch, leaders evicted before a
    // restart, a store offline) longer than the exporter's grace for it.
    {
      name: 'PodPlannedWaitStuck',
      class: 'planned_stuck',
      summary: 'A planned wait of tidb-operator v2 (PD mode switch, leader eviction, store offline) has not ended.',
      tail: ': class {{ $labels.class }}, reason {{ $reason }}. The operator started it on '
            + 'purpose, but it has outlasted its grace: look at the operator, not at the pod.',
    },
    // The inhibition sources (alertmanagerInhibitRules). Severity info: route them to a
    // receiver that drops them; they exist so that Alertmanager silences the generic per-pod
    // alerts of kubernetes-mixin for pods that wait as designed. No `for`, so they are active
    // before any generic alert.
    {
      name: 'PodWaitingOnDependency',
      class: 'dependency',
      summary: 'A TiDB pod waits on PD/TiKV, as designed.',
      tail: ' waiting on a dependency (class {{ $labels.class }}, reason {{ $reason }}). '
            + 'Generic not-ready alerts for this pod are inhibited.',
    },
    // An autoscaler is adding a node for the pod, within the provision timeout: as expected as
    // a dependency wait. Past the timeout the pod is `capacity` and pages.
    {
      name: 'PodWaitingForScaleUp',
      class: 'scale_up',
      summary: 'A TiDB pod waits for a node an autoscaler is adding, as designed.',
      tail: ' while an autoscaler adds a node for it (class {{ $labels.class }}, reason {{ $reason }}). '
            + 'Generic not-ready alerts for this pod are inhibited.',
    },
    // tidb-operator v2 holds the pod on purpose: its cluster is paused, suspending or
    // suspended, or a mode switch, leader eviction or store offline is under way within its
    // grace. KubePodNotReady, KubeContainerWaiting and KubePodCrashLooping are expected.
    {
      name: 'PodWaitingAsPlanned',
      class: 'planned',
      summary: 'tidb-operator v2 holds a TiDB pod on purpose (paused, suspended, mode switch, leader eviction, store offline).',
      tail: ' as planned (class {{ $labels.class }}, reason {{ $reason }}). Generic not-ready '
            + 'alerts for this pod are inhibited.',
    },
  ],

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

    // An alert's labels are its identity: the object and the problem, never a detail that changes
    // while the problem stays. A per-pod alert is (namespace, pod, class) with the labels that do
    // not change while the pod lives (tidb_cluster, component); its stage and reason, which move
    // while the class stays (the autoscaler's events come and go), are read into the description
    // at notification time, so a new reason neither restarts `for` nor starts a second alert.
    local podIdentity = ['namespace', 'tidb_cluster', 'component', 'pod', 'class'],
    local podLabels = by(podIdentity),

    // The pod's current stage and reason ($stage, $reason), from the series the alert is made of;
    // "waiting" / "no longer reported" once the pod stopped waiting (keep_firing_for).
    local stageAndReason =
      '{{ $stage := "waiting" }}{{ $reason := "no longer reported" }}'
      + '{{ with printf "podwait_pod_waiting_seconds{%s=%%q,namespace=%%q,pod=%%q,class=%%q}" $labels.%s '
        % [cl, cl]
      + '$labels.namespace $labels.pod $labels.class | query }}{{ with first . }}'
      + '{{ $stage = .Labels.stage }}{{ $reason = .Labels.reason }}{{ end }}{{ end }}',

    // Where the on-call reads the pod's evidence: the status page of the exporter, filtered to it.
    local statusPageURL =
      c.externalURL + '/?namespace={{ $labels.namespace | urlquery }}&pod={{ $labels.pod | urlquery }}',

    // An alert with its severity, durations and runbook from _config.alerts.
    local alert(name, expr, summary, description, extra={}) =
      local t = c.alerts[name];
      {
      alert: name,
      expr: expr,
      labels: { severity: t.severity },
      annotations: {
        summary: summary,
        description: description,
        runbook_url: runbookURL(name),
      } + extra,
    } + (if t['for'] != '' then { 'for': t['for'] } else {})
      + (if t.keepFiringFor != '' then { keep_firing_for: t.keepFiringFor } else {}),

    local podAlert(row) = alert(
      row.name,
      |||
        max by (%s) (
          podwait_pod_waiting_seconds{class="%s"}
        )
      ||| % [podLabels, row.class],
      row.summary,
      stageAndReason
      + 'Pod {{ $labels.namespace }}/{{ $labels.pod }} ({{ $labels.component }} of TiDB cluster '
      + '{{ $labels.tidb_cluster }}) has been {{ $stage }} for {{ $value | humanizeDuration }}'
      + row.tail,
      { status_page_url: statusPageURL },
    ),

    // The classes a pod's wait is explained in: every expected class (the pod waits as designed)
    // and every class a podwait alert pages for (the pod's problem pages once, with the why). The
    // generic alerts of a pod or StatefulSet whose waits are all explained are noise.
    local pagedClasses = std.set([r.class for r in $._podAlertRows if c.alerts[r.name].severity != 'info']),
    local expectedClasses = std.set([k.name for k in $._contract.classes if k.expected]),
    local explainedClasses = std.setUnion(expectedClasses, pagedClasses),
    // The dependency label's value as the on-call reads it.
    local depName = '{{ if eq $labels.dependency "pd" }}PD{{ else if eq $labels.dependency "tso" }}TSO'
                    + '{{ else if eq $labels.dependency "dm-master" }}the DM masters{{ else }}TiKV{{ end }}',
    local classRegex(classes) = std.join('|', [k.name for k in $._contract.classes if std.member(classes, k.name)]),

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
        rules: [podAlert(r) for r in $._podAlertRows if c.alerts[r.name].severity != 'info'] + [
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
          // Synced condition is False), quiet while podwait explains that instance's pod (it waits
          // as designed, or podwait pages for it with the why): joined exactly on the v2 instance
          // name. One alert per instance: which condition is False is read into the description.
          alert(
            'TiDBOperatorInstanceAbnormal',
            |||
              max by (%(inst)s) (
                namespace_tidb_cluster_v2_instance:tidb_operator_abnormal_instance:max == 1
              )
              unless on (%(join)s)
              max by (%(join)s) (
                podwait_pod_waiting_seconds{class=~"%(explained)s"}
              )
            ||| % {
              inst: by(['namespace', 'tidb_cluster', 'component', 'group', 'v2_instance']),
              join: by(['namespace', 'v2_instance']),
              explained: classRegex(explainedClasses),
            },
            'A tidb-operator v2 instance is not Ready or not Synced and podwait does not explain its pod.',
            '{{ $labels.component }} instance {{ $labels.namespace }}/{{ $labels.v2_instance }} (group '
            + '{{ $labels.group }} of TiDB cluster {{ $labels.tidb_cluster }}) has had '
            + '{{ with printf "max by (condition) (namespace_tidb_cluster_v2_instance:tidb_operator_abnormal_instance:max{%s=%%q,namespace=%%q,v2_instance=%%q} == 1)" $labels.%s $labels.namespace $labels.v2_instance | query }}{{ range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s.Labels.condition }}=False{{ end }}{{ else }}a condition False{{ end }}'
              % [cl, cl]
            + ' while its pod is Ready or waits for a reason podwait does not page for (see podwait\'s class for the pod).',
          ),
          // One alert per TiDB cluster and dependency, pointing at PD, TSO, TiKV or the DM masters
          // rather than at the pods. The value is the longest current dependency wait of the cluster's pods.
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
            "PD, TSO, TiKV or the DM masters of a TiDB cluster are not ready and the cluster's pods "
            + 'wait on them.',
            depName + ' of TiDB cluster '
            + '{{ $labels.tidb_cluster }} (namespace {{ $labels.namespace }}) is not ready; '
            + '{{ with printf "sum(podwait_waiting_pods{%s=%%q,namespace=%%q,tidb_cluster=%%q,class=\\"dependency\\"})" $labels.%s $labels.namespace $labels.tidb_cluster | query }}{{ . | first | value }}{{ else }}some{{ end }}'
              % [cl, cl]
            + ' pod(s) wait on a dependency, the longest for {{ $value | humanizeDuration }}. '
            + 'Fix ' + depName + ', not the waiting pods.',
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
        ] + [podAlert(r) for r in $._podAlertRows if c.alerts[r.name].severity == 'info'] + [
          // The StatefulSet-level inhibition source: active while every waiting pod of the
          // StatefulSet is explained (it waits as designed, or a podwait alert pages for it), so
          // KubeStatefulSetReplicasMismatch adds no second page. A set with one pod crash-looping
          // or not ready keeps its generic alert. The value is the longest of those waits.
          alert(
            'StatefulSetWaitExplained',
            |||
              max by (%(sts)s) (
              %(explained)s
              )
              and on (%(sts)s)
              (
                  count by (%(sts)s) (
              %(explainedPerPod)s
                  )
                == on (%(sts)s)
                  count by (%(sts)s) (
              %(allPerPod)s
                  )
              )
            ||| % {
              local sel = 'podwait_pod_waiting_seconds{class=~"%s", pod=~".+-[0-9]+"}' % classRegex(explainedClasses),
              sts: stsKey,
              explained: indent(stsOf(sel), 2),
              explainedPerPod: indent(stsOf('max by (%s) (\n  %s\n)' % [podKey, sel]), 6),
              allPerPod: indent(stsOf(
                'max by (%s) (\n  podwait_pod_waiting_seconds{pod=~".+-[0-9]+"}\n)' % podKey
              ), 6),
            },
            'Every waiting pod of a TiDB StatefulSet waits as designed or has a podwait alert of its own.',
            '{{ with printf "count(max by (pod) (podwait_pod_waiting_seconds{%s=%%q,namespace=%%q,tidb_cluster=%%q,pod=~\\"%%s-[0-9]+\\"}))" $labels.%s $labels.namespace $labels.tidb_cluster $labels.statefulset | query }}{{ . | first | value }}{{ else }}Some{{ end }}'
              % [cl, cl]
            + ' pod(s) of StatefulSet {{ $labels.namespace }}/{{ $labels.statefulset }} '
            + '({{ $labels.component }} of TiDB cluster {{ $labels.tidb_cluster }}) wait, the longest for '
            + '{{ $value | humanizeDuration }}; each waits as designed or pages on its own. Generic '
            + 'replicas-mismatch alerts for this StatefulSet are inhibited.',
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

  // Alertmanager inhibitions: one problem, one page. While podwait explains a pod's wait (it
  // waits as designed, or podwait pages for it with the why), the generic per-pod alerts of
  // kubernetes-mixin for exactly that pod are silenced; while every waiting pod of a StatefulSet
  // is explained, its replicas-mismatch alert is. `equal` includes the cluster label so that two
  // Kubernetes clusters never silence each other (Alertmanager treats a label missing on both
  // alerts as equal).
  alertmanagerInhibitRules+:: {
    local cl = $._config.clusterLabel,
    local podAlerts = [r.name for r in $._podAlertRows],
    local anyOf(names) = if std.length(names) == 1 then '= ' + names[0]
                         else '=~ "%s"' % std.join('|', names),
    inhibit_rules+: [
      // Every per-pod alert of podwait (an expected wait's info source, or the page of a capacity
      // shortfall, constraints, a stuck volume, a wait stuck after its dependency or its plan):
      // KubePodNotReady, KubeContainerWaiting and KubePodCrashLooping of that pod say the same
      // thing without the why. (An unscheduled or volume-stuck pod has no container to crash; a
      // crash loop podwait does not explain is `crashloop` and raises no source.)
      {
        source_matchers: ['alertname ' + anyOf(podAlerts)],
        target_matchers: ['alertname =~ "KubePodNotReady|KubeContainerWaiting|KubePodCrashLooping"'],
        equal: ['namespace', 'pod', cl],
      },
      // Every waiting pod of the StatefulSet is explained: its replicas mismatch is too.
      {
        source_matchers: ['alertname = StatefulSetWaitExplained'],
        target_matchers: ['alertname = KubeStatefulSetReplicasMismatch'],
        equal: ['namespace', 'statefulset', cl],
      },
      // The scale-up the pod waited for failed or timed out: the capacity page replaces the
      // "too slow" warning of the same pod (keep_firing_for would hold both for a while).
      {
        source_matchers: ['alertname = PodCapacityShortfall'],
        target_matchers: ['alertname = PodScaleUpTooSlow'],
        equal: ['namespace', 'pod', cl],
      },
      // PD not ready explains TiKV not ready, and TSO not ready (the TSO microservice joins its
      // primary election through PD), in the same TiDB cluster: page about PD only.
      {
        source_matchers: ['alertname = TiDBDependencyNotReady', 'dependency = pd'],
        target_matchers: ['alertname = TiDBDependencyNotReady', 'dependency =~ "tikv|tso"'],
        equal: ['namespace', 'tidb_cluster', cl],
      },
    ],
  },
}
