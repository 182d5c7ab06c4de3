// podwait's monitoring mixin: prometheusAlerts, prometheusRules and grafanaDashboards in the shape
// of kubernetes-mixin and node-mixin, tuned through _config (config.libsonnet), plus
// alertmanagerInhibitRules for the inhibitions that make the expected waits quiet.
//
//   local podwait = (import 'podwait-mixin/mixin.libsonnet') + {
//     _config+:: { podwaitSelector: 'job="podwait"', clusterLabel: 'k8s_cluster' },
//   };
//   { 'podwait.rules.yaml': std.manifestYamlDoc(podwait.prometheusRules + podwait.prometheusAlerts) }
//
// The class vocabulary comes from mixin/contract.json (what `podwait-exporter contract` prints).
(import 'config.libsonnet') +
(import 'rules.libsonnet') +
(import 'alerts.libsonnet') +
(import 'dashboards.libsonnet')
