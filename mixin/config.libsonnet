// What a user of the mixin tunes. Override any of it when importing:
//
//   (import 'podwait-mixin/mixin.libsonnet') + { _config+:: { podwaitSelector: 'job="podwait"' } }
//
// Each alert's duration is its `for`; `keepFiringFor` keeps it firing through short gaps (a class
// or reason flapping, a missed scrape). The exporter applies its own timing before it names a
// class: `scale_up` turns `capacity` after --autoscaler.provision-timeout (15m), `dependency` turns
// `dependency_stuck` after --dependency.ready-grace (2m); these durations come on top.
//
// Assumptions of the rules:
// - The exporter is scraped with honor_labels: true, so its `namespace` and `pod` labels (the
//   waiting pod) are not renamed to exported_namespace / exported_pod.
// - Per-pod series are on (--metrics.pod-series=true, the default): the per-pod alerts and the
//   inhibition sources need podwait_pod_waiting_seconds.
{
  _config+:: {
    // Selects podwait-exporter's targets in `up` (PodwaitExporterDown). The default matches a
    // scrape job with "podwait" in its name: Prometheus Operator names it after the Service
    // (podwait-exporter) or <namespace>/<ServiceMonitor>.
    podwaitSelector: 'job=~".*podwait.*"',

    // The label naming the Kubernetes cluster (an external label, or a target label in a central
    // Prometheus/Thanos/Mimir). podwait never emits it. Every aggregation keeps it, which is
    // harmless where the label does not exist; the inhibitions match on it.
    clusterLabel: 'cluster',

    // The URL the on-call reaches podwait-exporter at, as its --web.external-url says (an
    // ingress, a proxy). The exporter serves the runbook of its own version at /runbook, so the
    // default links point there; the default is the Service of deploy/ (in-cluster DNS): set
    // your own. No trailing slash.
    externalURL: 'http://podwait-exporter.podwait.svc:9877',

    // runbook_url of each alert: the pattern's %s is the alert name in lower case. It must be
    // absolute (http:// or https://): a relative link opens nothing in Slack, PagerDuty,
    // Alertmanager or Grafana, so the build refuses one. Point it at your own copy of
    // rules/RUNBOOK.md if you keep one (its section anchors are the alert names in lower case).
    runbookURLPattern: self.externalURL + '/runbook#%s',

    // Durations: for / keep_firing_for per alert ('' leaves the field out).
    alerts: {
      PodCapacityShortfall: { severity: 'critical', 'for': '5m', keepFiringFor: '5m' },
      PodScaleUpTooSlow: { severity: 'warning', 'for': '10m', keepFiringFor: '5m' },
      PodUnschedulableConstraints: { severity: 'warning', 'for': '10m', keepFiringFor: '5m' },
      PodStuckAfterDependencyReady: { severity: 'warning', 'for': '5m', keepFiringFor: '5m' },
      PodVolumeOrSandboxStuck: { severity: 'warning', 'for': '2m', keepFiringFor: '5m' },
      TiDBDependencyNotReady: { severity: 'critical', 'for': '10m', keepFiringFor: '5m' },
      TiDBFailoverDuringDependencyWait: { severity: 'warning', 'for': '1m', keepFiringFor: '15m' },
      PodWaitingOnDependency: { severity: 'info', 'for': '', keepFiringFor: '5m' },
      PodWaitingForScaleUp: { severity: 'info', 'for': '', keepFiringFor: '5m' },
      StatefulSetWaitExplained: { severity: 'info', 'for': '', keepFiringFor: '5m' },
      PodwaitExporterDown: { severity: 'warning', 'for': '5m', keepFiringFor: '' },
      PodwaitWatchStale: { severity: 'warning', 'for': '10m', keepFiringFor: '' },
      PodwaitProbeFailing: { severity: 'warning', 'for': '10m', keepFiringFor: '5m' },
      PodwaitWebConfigReloadFailed: { severity: 'warning', 'for': '10m', keepFiringFor: '' },
      // An autoscaler podwait detected is silent or its status stopped updating
      // (podwait_autoscaler_healthy 0, the exporter's --autoscaler.silence-grace already waited).
      AutoscalerSilent: { severity: 'warning', 'for': '5m', keepFiringFor: '5m' },
      // tidb-operator v2 (docs/DESIGN.md §6): a planned wait past its grace (the exporter's
      // --v2.*-grace flags), a cluster paused so long that whatever broke meanwhile stays broken
      // (the operator heals nothing while paused: 4h is past any maintenance window), the
      // inhibition source of planned waits, and the operator's own abnormal-instance gauge when
      // podwait does not say the instance's pod waits as designed.
      PodPlannedWaitStuck: { severity: 'warning', 'for': '5m', keepFiringFor: '5m' },
      TiDBClusterPausedTooLong: { severity: 'warning', 'for': '4h', keepFiringFor: '' },
      PodWaitingAsPlanned: { severity: 'info', 'for': '', keepFiringFor: '5m' },
      TiDBOperatorInstanceAbnormal: { severity: 'warning', 'for': '15m', keepFiringFor: '5m' },
    },
    // A synced watch that saw nothing (bookmarks included) for this long is stale.
    watchStaleSeconds: 1800,
    // Window of the stage-duration recording rule.
    stageDurationRateWindow: '5m',

    // Grafana.
    grafanaDashboardTags: ['podwait', 'tidb'],
    grafanaRefresh: '30s',
    grafanaTimeFrom: 'now-3h',
    overviewUid: 'podwait-overview',
    clusterUid: 'podwait-cluster',
    // One colour per class (every class of mixin/contract.json needs one; the build fails otherwise).
    // Expected waits are calm (blue, green, grey), shortfalls loud (red, orange). The order is
    // the legend order of the class cell's value mapping.
    classColors: [
      ['dependency', 'blue'],
      ['scale_up', 'green'],
      ['scheduling', 'light-blue'],
      ['starting', 'light-green'],
      ['gated', '#8F8F8F'],
      ['capacity', 'red'],
      ['constraints', 'dark-red'],
      ['dependency_stuck', 'orange'],
      ['image', 'dark-orange'],
      ['crashloop', 'semi-dark-red'],
      ['config', 'light-red'],
      ['not_ready', 'light-orange'],
      ['volume', 'semi-dark-orange'],
      ['planned', 'dark-blue'],
      ['planned_stuck', 'super-light-orange'],
    ],
    storeColors: [
      ['Up', 'green'],
      ['Disconnected', 'orange'],
      ['Down', 'red'],
      ['Offline', 'yellow'],
      ['Tombstone', '#8F8F8F'],
    ],
  },

  // The vocabulary: stages, classes, reasons and metrics, as `podwait-exporter contract` prints.
  _contract:: import 'contract.json',
}
