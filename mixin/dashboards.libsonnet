// The Grafana dashboards: an overview of every TiDB cluster and a drill-down for one.
local g = import 'lib/grafana.libsonnet';

{
  grafanaDashboards+:: {
    local c = $._config,
    local cl = c.clusterLabel,
    local r = $._records,

    // Every class of the contract needs a colour; the order of classColors is the mapping order.
    local colorOf = { [p[0]]: p[1] for p in c.classColors },
    local classes = [k.name for k in $._contract.classes],
    local missing = [k for k in classes if !std.objectHas(colorOf, k)],
    local classColors =
      if missing != [] then error 'mixin: _config.classColors has no colour for class(es) ' + std.join(', ', missing)
      else [p for p in c.classColors if std.member(classes, p[0])],
    local expectedRe = std.join('|', [k.name for k in $._contract.classes if k.expected]),

    // The Kubernetes cluster (empty in a single-cluster Prometheus: its "All" is .* so that series
    // without the label match too).
    local selK8s = '%s=~"$cluster"' % cl,
    local selMulti = selK8s + ', namespace=~"$namespace", tidb_cluster=~"$tidb_cluster"',
    local selOne = selK8s + ', tidb_cluster="$tidb_cluster"',

    local clusterLink(value) =
      '/d/%s/podwait-cluster?${datasource:queryparam}&${cluster:queryparam}&var-tidb_cluster=%s&${__url_time_range}'
      % [c.clusterUid, value],

    local classOverrides(pattern='%s', matcher='byName') =
      [g.colorOverride(pattern % p[0], p[1], matcher) for p in classColors],
    local storeOverrides = [g.colorOverride(p[0], p[1]) for p in c.storeColors],

    // Failover members recorded during a dependency wait; the exporter emits the series only for
    // components with failover members, so the others read as 0 (not as no data).
    local duringWait(sel) =
      'podwait_failover_during_dependency_wait{%s} or (podwait_failover_members{%s} * 0)' % [sel, sel],

    // The next hop from a pod's row (the exporter's status page and runbook, at _config.externalURL):
    // the pod on the status page (its class, reason, evidence, since when, what holds it) and its
    // class's section of the runbook (what to do).
    local podLinks = {
      matcher: { id: 'byName', options: 'pod' },
      properties: [{
        id: 'links',
        value: [{
          title: 'Open ${__data.fields.namespace}/${__data.fields.pod} on the status page: evidence, since when, what holds it',
          url: c.externalURL + '/?namespace=${__data.fields.namespace:percentencode}&pod=${__data.fields.pod:percentencode}',
          targetBlank: true,
        }],
      }],
    },
    local runbookLinks = {
      matcher: { id: 'byName', options: 'reason' },
      properties: [{
        id: 'links',
        value: [{
          title: 'Open the runbook: what to do about class ${__data.fields.class}',
          url: c.externalURL + '/runbook#class-${__data.fields.class}',
          targetBlank: true,
        }],
      }],
    },

    // A table of waiting pods: one row per podwait_pod_waiting_seconds series of `sel`.
    local waitingTable(sel, title='Waiting pods', w=24, h=10, description=null) =
      local hidden = ['Time', '__name__', 'job', 'instance', 'endpoint', 'service', 'prometheus'];
      local columns = ['namespace', 'tidb_cluster', 'pod', 'component', 'stage', 'class', 'reason', 'Value'];
      g.panel(
        'table',
        title,
        if description != null then description else
          'Every pod that is not Ready, from podwait_pod_waiting_seconds: its stage (unscheduled, '
          + 'initializing, starting), class (why it waits) and normalized reason, and how long it '
          + 'has been in its current stage. Sorted longest first; the class cell is coloured like '
          + 'the class graphs. Click a pod for its evidence on the status page, a reason for the '
          + "runbook's section of its class, a TiDB cluster to open its drill-down.",
        's',
        [g.target('podwait_pod_waiting_seconds{%s}' % sel, '', instant=true, format='table')],
        w,
        h,
        defaults={
          custom: { align: 'auto', cellOptions: { type: 'auto' }, filterable: true },
          color: { mode: 'fixed', fixedColor: 'text' },
        },
        overrides=[
          {
            matcher: { id: 'byName', options: 'class' },
            properties: [
              {
                id: 'mappings',
                value: [{
                  type: 'value',
                  options: {
                    [classColors[i][0]]: { color: classColors[i][1], index: i }
                    for i in std.range(0, std.length(classColors) - 1)
                  },
                }],
              },
              { id: 'custom.cellOptions', value: { type: 'color-background' } },
            ],
          },
          {
            matcher: { id: 'byName', options: 'tidb_cluster' },
            properties: [{
              id: 'links',
              value: [{
                title: 'Open the TiDB cluster drill-down',
                url: clusterLink('${__data.fields.tidb_cluster}'),
              }],
            }],
          },
          podLinks,
          runbookLinks,
          {
            matcher: { id: 'byName', options: 'waiting for' },
            properties: [
              { id: 'custom.cellOptions', value: { type: 'color-text' } },
              { id: 'color', value: { mode: 'thresholds' } },
              { id: 'thresholds', value: g.thresholds([['text', null], ['orange', 900], ['red', 3600]]) },
            ],
          },
        ],
        options={
          showHeader: true,
          sortBy: [{ displayName: 'waiting for', desc: true }],
          footer: { show: false, reducer: ['sum'], fields: '' },
        },
        extra={
          transformations: [{
            id: 'organize',
            options: {
              excludeByName: { [n]: true for n in hidden },
              indexByName: { [columns[i]]: i for i in std.range(0, std.length(columns) - 1) },
              renameByName: { Value: 'waiting for' },
            },
          }],
        },
      ),

    // The pods that need attention (every class that is not an expected wait), longest first.
    local attentionTable(sel, h=8) = waitingTable(
      '%s, class!~"%s"' % [sel, expectedRe],
      'Pods that need attention',
      h=h,
      description='The waiting pods whose class is not an expected wait (capacity, constraints, '
                  + 'dependency_stuck, image, crashloop, config, not_ready, volume, planned_stuck): '
                  + 'the why is the class and the reason, the how long the waiting time (in the '
                  + 'current stage). Click a pod for its evidence on the status page (what it '
                  + 'waits on, since when, what holds it), a reason for the runbook section of its '
                  + 'class. Empty is good news only while the exporter is up and synced (the '
                  + 'stats above).',
    ),

    // podwait's alerts as Prometheus evaluates them (firing and pending), filtered by alert name
    // (every alert of the mixin) and `labels`.
    local alertNames = [r.alert for grp in $.prometheusAlerts.groups for r in grp.rules if std.objectHas(r, 'alert')],
    local alertList(labels, w=24, h=8) = g.panel(
      'alertlist',
      'podwait alerts',
      "podwait's alerts that fire or are pending (from the data source's rules, the same as "
      + "Alertmanager gets), most important first. Each names its runbook; the per-pod ones link "
      + 'the pod on the status page.',
      'none',
      [],
      w,
      h,
      options={
        viewMode: 'list',
        groupMode: 'default',
        groupBy: [],
        maxItems: 50,
        sortOrder: 3,  // importance
        dashboardAlerts: false,
        alertName: '',
        showInstances: true,
        stateFilter: { firing: true, pending: true, noData: false, normal: false, 'error': true },
        alertInstanceLabelFilter: '{alertname=~"%s", %s}' % [std.join('|', alertNames), labels],
      },
    ),

    local stageQuantiles(stage, title, what, w=8) =
      local expr(q) = 'histogram_quantile(%s, sum by (class, le) (%s{%s, stage="%s"}))' % [q, r.stage, selK8s, stage];
      g.timeseries(
        title,
        '%s, completed in the last 5 minutes, as p50 and p90 per class (from ' % what
        + 'podwait_stage_duration_seconds, stage="%s", via the recording rule %s). ' % [stage, r.stage]
        + 'Compare scale_up (an autoscaler added a node) with capacity or scheduling (nothing '
        + 'had to be added): the gap is what provisioning costs. Gaps mean no pod left the stage.',
        's',
        g.targets([[expr('0.5'), 'p50 {{class}}'], [expr('0.9'), 'p90 {{class}}']]),
        w=w,
        overrides=classOverrides('p.. %s', 'byRegexp') + [{
          matcher: { id: 'byRegexp', options: 'p50 .*' },
          properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
        }],
      ),

    local variables(tidbMulti) =
      local ds = {
        name: 'datasource',
        label: 'Data source',
        type: 'datasource',
        query: 'prometheus',
        current: {},
        hide: 0,
        includeAll: false,
        multi: false,
        options: [],
        refresh: 1,
        regex: '',
        skipUrlSync: false,
      };
      local queryVar(name, label, query, multi, allValue='.+') = {
        name: name,
        label: label,
        type: 'query',
        datasource: g.ds,
        definition: query,
        query: query,
        current: {},
        hide: 0,
        includeAll: multi,
        multi: multi,
        options: [],
        refresh: 2,
        regex: '',
        skipUrlSync: false,
        sort: 1,
      } + (if multi then { allValue: allValue } else {});
      local k8s = queryVar('cluster', 'Kubernetes cluster', 'label_values(podwait_build_info, %s)' % cl, true, allValue='.*');
      // podwait_pd_probe_success has one series per known TiDB cluster whether or not anything
      // waits, so the variables are populated on a healthy cluster too.
      if tidbMulti then [
        ds,
        k8s,
        queryVar('namespace', 'Namespace', 'label_values(podwait_pd_probe_success{%s}, namespace)' % selK8s, true),
        queryVar('tidb_cluster', 'TiDB cluster',
                 'label_values(podwait_pd_probe_success{%s, namespace=~"$namespace"}, tidb_cluster)' % selK8s, true),
      ] else [
        ds,
        k8s,
        queryVar('tidb_cluster', 'TiDB cluster', 'label_values(podwait_pd_probe_success{%s}, tidb_cluster)' % selK8s, false),
      ],

    local overview =
      local s = selMulti;
      local clusterLinks = [{
        title: 'Open ${__field.labels.tidb_cluster} in the drill-down',
        url: clusterLink('${__field.labels.tidb_cluster}'),
      }];
      g.dashboard(
        c.overviewUid,
        'podwait / Overview',
        'Why pods of TiDB clusters wait: expected waits on PD/TiKV or the autoscaler versus '
        + 'real capacity shortfalls (podwait exporter).',
        [
          g.stat('Pods waiting as designed',
                 'Pods whose wait is expected: dependency (PD/TiKV not ready yet), scale_up (an '
                 + 'autoscaler is adding a node), gated, scheduling, starting and planned (tidb-operator '
                 + 'v2 holds it on purpose). Not a capacity signal.',
                 'short',
                 g.targets([['sum(%s{%s, class=~"%s"}) or vector(0)' % [r.pods, s, expectedRe], 'pods']]),
                 steps=[['blue', null]]),
          g.stat('Pods waiting on a shortfall',
                 'Pods whose wait is not expected: capacity (nothing adds the missing resources), '
                 + 'dependency_stuck, constraints, image, crashloop, config, not_ready, volume, '
                 + 'planned_stuck. This is the '
                 + 'real pending-pods signal for capacity planning.',
                 'short',
                 g.targets([['sum(%s{%s, class!~"%s"}) or vector(0)' % [r.pods, s, expectedRe], 'pods']]),
                 steps=[['green', null], ['red', 1]]),
          g.stat('Oldest shortfall wait',
                 'The longest current wait among pods in an unexpected class.',
                 's',
                 g.targets([['max(%s{%s, class!~"%s"}) or vector(0)' % [r.oldest, s, expectedRe], 'oldest']]),
                 steps=[['green', null], ['orange', 300], ['red', 900]]),
          g.stat('Dependencies not ready',
                 'How many PD or TiKV dependencies of the selected TiDB clusters are known to be not '
                 + 'ready (podwait_dependency_ready == 0). Unknown dependencies are not counted: see '
                 + 'PD API probe success below.',
                 'short',
                 g.targets([['count(podwait_dependency_ready{%s} == 0) or vector(0)' % s, 'not ready']]),
                 steps=[['green', null], ['orange', 1]]),
          g.stat('Autoscaler seen',
                 'Which node autoscaler podwait detected (cluster-autoscaler status ConfigMap or '
                 + 'recent events, or set by flag). Without one, unschedulable pods short of '
                 + 'resources are capacity, never scale_up.',
                 'none',
                 g.targets([['max by (kind) (podwait_autoscaler_detected{%s})' % selK8s, '{{kind}}']]),
                 steps=[['#8F8F8F', null], ['green', 1]],
                 mappings=g.boolMapping('seen', 'not seen')),
          g.stat('Exporter watches synced',
                 '1 when every watch of every podwait exporter has listed and is watching '
                 + '(min of podwait_watch_synced). While 0, classes may be stale.',
                 'none',
                 g.targets([['min(podwait_watch_synced{%s})' % selK8s, 'synced']]),
                 steps=[['red', null], ['green', 1]],
                 mappings=g.boolMapping('synced', 'not synced'), noValue='exporter down'),
          g.timeseries('Waiting pods by class',
                       'Waiting pods stacked by class (why they wait). Calm colours (blue, green, '
                       + 'grey) are expected waits; red and orange are shortfalls that need a human.',
                       'short',
                       g.targets([['sum by (class) (%s{%s})' % [r.pods, s], '{{class}}']]),
                       stacked=true, overrides=classOverrides(), legendTable=true),
          g.timeseries('Oldest wait by class',
                       'The longest current wait per class: how long the oldest waiting pod of each '
                       + 'class has been in its stage. A dependency wait that keeps growing points at '
                       + 'PD or TiKV, a capacity wait at the node pools.',
                       's',
                       g.targets([['max by (class) (%s{%s})' % [r.oldest, s], '{{class}}']]),
                       overrides=classOverrides(), legendTable=true),
          g.timeseries('Scale-up stage',
                       'Pods in class scale_up by reason: the stage of the node being added for '
                       + 'them. cluster-autoscaler: scale_up_in_progress. Karpenter: the nominated '
                       + "NodeClaim's stage, karpenter_launching (the instance is being bought), "
                       + 'karpenter_registering (its node has not joined), karpenter_initializing '
                       + '(the node joined, its daemons or startup taints are not done), '
                       + 'karpenter_nominated (the node is up). A line that stays in registering or '
                       + 'initializing is a node stuck joining, not a slow purchase.',
                       'short',
                       // 0 rather than "No data" while no node is being added.
                       g.targets([['count by (reason) (podwait_pod_waiting_seconds{%s, class="scale_up"}) or on() vector(0)' % s,
                                   '{{reason}}']]),
                       w=24, h=7, stacked=true, legendTable=true),
          g.stateTimeline('PD and TiKV readiness',
                          "Readiness of each TiDB cluster's dependencies as podwait sees them: PD "
                          + '(has a leader; initialized for TiDB) and TiKV (a store is Up). A gap '
                          + 'means unknown: the PD API did not answer although PD pods are Ready. '
                          + 'Click a row to open that TiDB cluster.',
                          g.targets([['podwait_dependency_ready{%s}' % s, '{{tidb_cluster}} {{dependency}}']]),
                          'ready', 'not ready', h=7, links=clusterLinks),
          attentionTable(s),
          alertList('%s=~"${cluster:regex}"' % cl),
          waitingTable(s),
          g.row('Stage durations (completed stages)'),
          stageQuantiles('unscheduled', 'Time to schedule by class', 'Time from creation to PodScheduled'),
          stageQuantiles('initializing', 'Time in init by class',
                         'Time from scheduling to Initialized (init containers such as wait-for-pd)'),
          stageQuantiles('starting', 'Time to start by class', 'Time from Initialized to Ready'),
          g.row('TiDB cluster state'),
          g.timeseries('TiKV stores by state',
                       'TiKV stores of the selected TiDB clusters by PD state_name (TiFlash '
                       + 'excluded). Down and Disconnected stores keep tikv not ready.',
                       'short',
                       g.targets([['sum by (state) (podwait_tikv_stores{%s})' % s, '{{state}}']]),
                       stacked=true, overrides=storeOverrides),
          g.timeseries('Failover during dependency waits',
                       'Failover members or stores that tidb-operator recorded '
                       + '(podwait_failover_members) and, of those, the ones recorded while the pod '
                       + 'was only waiting on a dependency (podwait_failover_during_dependency_wait): '
                       + 'replicas added for pods that were never broken. 0 while the operator '
                       + 'recorded no failover.',
                       'short',
                       g.targets([
                         ['sum by (tidb_cluster, component) (podwait_failover_members{%s})' % s,
                          '{{tidb_cluster}} {{component}} failover'],
                         ['sum by (tidb_cluster, component) (%s)' % duringWait(s),
                          '{{tidb_cluster}} {{component}} during dependency wait'],
                       ]),
                       overrides=[g.colorOverride('.* during dependency wait', 'red', 'byRegexp')],
                       links=clusterLinks),
          g.row('Exporter health'),
          g.stateTimeline('Watch sync by resource',
                          'podwait_watch_synced per exporter and resource (pods, events, '
                          + 'tidbclusters, configmaps): synced means listed and watching.',
                          g.targets([['podwait_watch_synced{%s}' % selK8s, '{{instance}} {{resource}}']]),
                          'synced', 'not synced', w=8, h=8),
          g.stateTimeline('PD API probe success',
                          'podwait_pd_probe_success per TiDB cluster: the last PD API probe '
                          + 'answered and parsed. While it fails, dependency readiness falls back to '
                          + 'PD pods and may be unknown.',
                          g.targets([['podwait_pd_probe_success{%s}' % s, '{{tidb_cluster}}']]),
                          'answers', 'fails', w=8, h=8, links=clusterLinks),
          g.timeseries('Parse errors and watch events',
                       'Rate of malformed documents counted and skipped (podwait_parse_errors_total) '
                       + 'and of watch events received (podwait_watch_events_total), by resource. '
                       + 'Parse errors should stay at zero.',
                       'cps',
                       g.targets([
                         ['sum by (resource) (rate(podwait_parse_errors_total{%s}[$__rate_interval]))' % selK8s,
                          '{{resource}} parse errors'],
                         ['sum by (resource) (rate(podwait_watch_events_total{%s}[$__rate_interval]))' % selK8s,
                          '{{resource}} events'],
                       ]),
                       w=8,
                       overrides=[g.colorOverride('.* parse errors', 'red', 'byRegexp')]),
          g.timeseries('PD probe latency',
                       'p90 of PD API request duration by endpoint (podwait_probe_duration_seconds) '
                       + 'and the duration of the last full probe round over all clusters '
                       + '(podwait_probe_round_seconds).',
                       's',
                       g.targets([
                         ['histogram_quantile(0.9, sum by (endpoint, le) (rate(podwait_probe_duration_seconds_bucket{%s}[$__rate_interval])))' % selK8s,
                          'p90 {{endpoint}}'],
                         ['max(podwait_probe_round_seconds{%s})' % selK8s, 'probe round'],
                       ]),
                       w=8),
          g.timeseries('Scrape duration',
                       'p99 time podwait takes to render /metrics (podwait_scrape_duration_seconds).',
                       's',
                       g.targets([
                         ['histogram_quantile(0.99, sum by (instance, le) (rate(podwait_scrape_duration_seconds_bucket{%s}[$__rate_interval])))' % selK8s,
                          'p99 {{instance}}'],
                       ]),
                       w=8),
          g.timeseries('Exporter memory',
                       'Resident memory of each podwait exporter (process_resident_memory_bytes, '
                       + 'restricted to targets that expose podwait_build_info).',
                       'bytes',
                       g.targets([
                         ['process_resident_memory_bytes{%s} and on (%s, job, instance) podwait_build_info' % [selK8s, cl],
                          '{{instance}}'],
                       ]),
                       w=8),
        ],
        variables(true),
        [{
          title: 'TiDB cluster drill-down',
          type: 'link',
          url: '/d/%s/podwait-cluster' % c.clusterUid,
          includeVars: true,
          keepTime: true,
          icon: 'dashboard',
          targetBlank: false,
          tooltip: 'podwait drill-down for one TiDB cluster (carries $tidb_cluster)',
          asDropdown: false,
          tags: [],
        }],
        c,
      ),

    local cluster =
      local s = selOne;
      local yesNo = [['red', null], ['green', 1]];
      g.dashboard(
        c.clusterUid,
        'podwait / TiDB cluster',
        'Why the pods of one TiDB cluster wait, with the state of its PD and TiKV.',
        [
          g.stat('PD ready',
                 'podwait_dependency_ready{dependency="pd"}: PD has a leader (and, for TiDB, the '
                 + 'cluster is initialized). Unknown when the PD API does not answer although PD pods '
                 + 'are Ready.',
                 'none', g.targets([['podwait_dependency_ready{%s, dependency="pd"}' % s, 'pd']]),
                 steps=yesNo, mappings=g.boolMapping('ready', 'not ready'), noValue='unknown'),
          g.stat('TiKV ready',
                 'podwait_dependency_ready{dependency="tikv"}: at least one TiKV store is Up.',
                 'none', g.targets([['podwait_dependency_ready{%s, dependency="tikv"}' % s, 'tikv']]),
                 steps=yesNo, mappings=g.boolMapping('ready', 'not ready'), noValue='unknown'),
          g.stat('PD leader',
                 'podwait_pd_leader: PD reports a leader.',
                 'none', g.targets([['podwait_pd_leader{%s}' % s, 'leader']]),
                 steps=yesNo, mappings=g.boolMapping('leader', 'no leader'), noValue='unknown'),
          g.stat('Cluster initialized',
                 "podwait_cluster_initialized: PD's cluster/status says is_initialized (what "
                 + "TiDB's wait-for-pd waits for).",
                 'none', g.targets([['podwait_cluster_initialized{%s}' % s, 'initialized']]),
                 steps=yesNo, mappings=g.boolMapping('initialized', 'not initialized'), noValue='unknown'),
          g.stat('Waiting pods',
                 'Pods of this TiDB cluster that are not Ready, all classes.',
                 'short', g.targets([['sum(podwait_waiting_pods{%s}) or vector(0)' % s, 'waiting']]),
                 steps=[['green', null], ['blue', 1]]),
          g.stat('Oldest wait',
                 'The longest current wait of any pod of this TiDB cluster.',
                 's', g.targets([['max(podwait_waiting_oldest_seconds{%s}) or vector(0)' % s, 'oldest']]),
                 steps=[['green', null], ['orange', 300], ['red', 900]]),
          g.timeseries('Waiting pods by component and class',
                       'Waiting pods of this TiDB cluster stacked by component and class. Blue and '
                       + 'green are expected waits, red and orange shortfalls.',
                       'short',
                       g.targets([['sum by (component, class) (podwait_waiting_pods{%s})' % s, '{{component}} {{class}}']]),
                       stacked=true, overrides=classOverrides('.* %s', 'byRegexp'), legendTable=true),
          g.timeseries('Wait per pod',
                       'podwait_pod_waiting_seconds: how long each waiting pod has been in its '
                       + 'current stage, labelled with class and reason. A line that resets changed '
                       + 'stage.',
                       's',
                       g.targets([['podwait_pod_waiting_seconds{%s}' % s, '{{pod}} {{stage}} {{class}} ({{reason}})']]),
                       legendTable=true),
          g.stateTimeline('Dependencies and PD',
                          'Readiness of PD and TiKV, whether the PD API answers, whether PD has a '
                          + 'leader and whether the cluster is initialized. Gaps are unknown.',
                          g.targets([
                            ['podwait_dependency_ready{%s}' % s, '{{dependency}} ready'],
                            ['podwait_pd_probe_success{%s}' % s, 'PD API answers'],
                            ['podwait_pd_leader{%s}' % s, 'PD leader'],
                            ['podwait_cluster_initialized{%s}' % s, 'initialized'],
                          ]),
                          'yes', 'no', h=8),
          attentionTable(s),
          alertList('%s=~"${cluster:regex}", tidb_cluster="${tidb_cluster}"' % cl),
          waitingTable(s),
          g.timeseries('Dependency ready for',
                       'How long each dependency that is ready now has been ready '
                       + '(time() - podwait_dependency_ready_since_timestamp_seconds). Pods still '
                       + 'waiting on a dependency that has been ready for more than the grace (2m) '
                       + 'are dependency_stuck.',
                       's',
                       g.targets([[
                         '(time() - podwait_dependency_ready_since_timestamp_seconds{%s}) and on (%s, namespace, tidb_cluster, dependency) (podwait_dependency_ready{%s} == 1)'
                         % [s, cl, s],
                         '{{dependency}}',
                       ]]),
                       w=12),
          g.timeseries('PD members by health',
                       "PD members by health from PD's /health.",
                       'short',
                       g.targets([['sum by (health) (podwait_pd_members{%s})' % s, '{{health}}']]),
                       w=12, stacked=true,
                       overrides=[g.colorOverride('healthy', 'green'), g.colorOverride('unhealthy', 'red')]),
          g.timeseries('TiKV stores by state',
                       'TiKV stores by PD state_name (TiFlash excluded).',
                       'short',
                       g.targets([['sum by (state) (podwait_tikv_stores{%s})' % s, '{{state}}']]),
                       w=12, stacked=true, overrides=storeOverrides),
          g.timeseries('Failover by component',
                       'Failover members or stores tidb-operator recorded, and those recorded while '
                       + 'the pod was only waiting on a dependency (the replicas added for nothing).',
                       'short',
                       g.targets([
                         ['sum by (component) (podwait_failover_members{%s})' % s, '{{component}} failover'],
                         ['sum by (component) (%s)' % duringWait(s), '{{component}} during dependency wait'],
                       ]),
                       w=12,
                       overrides=[g.colorOverride('.* during dependency wait', 'red', 'byRegexp')]),
        ],
        variables(false),
        [{
          title: 'podwait overview',
          type: 'link',
          url: '/d/%s/podwait-overview' % c.overviewUid,
          includeVars: true,
          keepTime: true,
          icon: 'dashboard',
          targetBlank: false,
          tooltip: 'All TiDB clusters',
          asDropdown: false,
          tags: [],
        }],
        c,
      ),

    'podwait-overview.json': overview,
    'podwait-cluster.json': cluster,
  },
}
