// Building blocks of podwait's dashboards (Grafana's classic JSON model, schemaVersion 38).
// Plain Jsonnet: Debian ships no grafonnet, and these few constructors are all the dashboards use.
{
  ds:: { type: 'prometheus', uid: '${datasource}' },

  target(expr, legend='', ref='A', instant=false, format='time_series'):: {
    datasource: $.ds,
    editorMode: 'code',
    expr: expr,
    legendFormat: if legend == '' then '__auto' else legend,
    range: !instant,
    instant: instant,
    refId: ref,
  } + (if format != 'time_series' then { format: format } else {}),

  // specs: [expr, legend] pairs; refIds A, B, C, ...
  targets(specs):: [
    $.target(specs[i][0], specs[i][1], ref=std.char(std.codepoint('A') + i))
    for i in std.range(0, std.length(specs) - 1)
  ],

  colorOverride(name, color, matcher='byName'):: {
    matcher: { id: matcher, options: name },
    properties: [{ id: 'color', value: { mode: 'fixed', fixedColor: color } }],
  },

  boolMapping(yes, no):: [{
    type: 'value',
    options: {
      '1': { text: yes, color: 'green', index: 0 },
      '0': { text: no, color: 'red', index: 1 },
    },
  }],

  // steps: [[color, value-or-null], ...]
  thresholds(steps):: { mode: 'absolute', steps: [{ color: s[0], value: s[1] } for s in steps] },

  panel(kind, title, description, unit, targets, w, h, defaults={}, overrides=[], options={}, extra={}):: {
    type: kind,
    title: title,
    description: description,
    datasource: $.ds,
    gridPos: { w: w, h: h },
    fieldConfig: { defaults: { unit: unit } + defaults, overrides: overrides },
    options: options,
    targets: targets,
  } + extra,

  timeseries(title, description, unit, targets, w=12, h=8, stacked=false, overrides=[], links=null,
             legendTable=false)::
    $.panel('timeseries', title, description, unit, targets, w, h,
            defaults={
              custom: {
                drawStyle: 'line',
                lineWidth: 1,
                fillOpacity: if stacked then 60 else 10,
                showPoints: 'never',
                spanNulls: false,
                stacking: { mode: if stacked then 'normal' else 'none', group: 'A' },
              },
              color: { mode: 'palette-classic' },
              min: 0,
            } + (if links != null then { links: links } else {}),
            overrides=overrides,
            options={
              legend: {
                displayMode: if legendTable then 'table' else 'list',
                placement: if legendTable then 'right' else 'bottom',
                showLegend: true,
                calcs: if legendTable then ['lastNotNull', 'max'] else [],
              },
              tooltip: { mode: 'multi', sort: 'desc' },
            }),

  stat(title, description, unit, targets, w=4, h=4, steps=[['green', null]], mappings=[], noValue=null)::
    $.panel('stat', title, description, unit, targets, w, h,
            defaults={
              color: { mode: 'thresholds' },
              thresholds: $.thresholds(steps),
              mappings: mappings,
            } + (if noValue != null then { noValue: noValue } else {}),
            options={
              reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
              colorMode: 'background',
              graphMode: 'none',
              justifyMode: 'auto',
              orientation: 'auto',
              textMode: 'auto',
            }),

  stateTimeline(title, description, targets, yes, no, w=24, h=7, links=null)::
    $.panel('state-timeline', title, description, 'none', targets, w, h,
            defaults={
              color: { mode: 'thresholds' },
              thresholds: $.thresholds([['red', null], ['green', 1]]),
              mappings: $.boolMapping(yes, no),
              custom: { fillOpacity: 80, lineWidth: 0 },
            } + (if links != null then { links: links } else {}),
            options={
              mergeValues: true,
              showValue: 'auto',
              alignValue: 'left',
              rowHeight: 0.9,
              legend: { displayMode: 'list', placement: 'bottom', showLegend: false },
              tooltip: { mode: 'single', sort: 'none' },
            }),

  row(title):: { type: 'row', title: title, collapsed: false, panels: [], gridPos: { w: 24, h: 1 } },

  // Assigns ids and flows panels left to right, top to bottom (rows start a new line).
  layout(panels)::
    local step(state, p) =
      local g = p.gridPos;
      local wrap = p.type == 'row' || state.x + g.w > 24;
      local x = if wrap then 0 else state.x;
      local y = if wrap then state.y + state.lineH else state.y;
      local lineH = if wrap then 0 else state.lineH;
      local placed = p { id: std.length(state.out) + 1, gridPos+: { x: x, y: y } };
      if p.type == 'row' then
        { x: 0, y: y + 1, lineH: 0, out: state.out + [placed] }
      else
        { x: x + g.w, y: y, lineH: std.max(lineH, g.h), out: state.out + [placed] };
    std.foldl(step, panels, { x: 0, y: 0, lineH: 0, out: [] }).out,

  dashboard(uid, title, description, panels, variables, links, config):: {
    annotations: {
      list: [{
        builtIn: 1,
        datasource: { type: 'grafana', uid: '-- Grafana --' },
        enable: true,
        hide: true,
        iconColor: 'rgba(0, 211, 255, 1)',
        name: 'Annotations & Alerts',
        type: 'dashboard',
      }],
    },
    description: description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: links,
    liveNow: false,
    panels: $.layout(panels),
    refresh: config.grafanaRefresh,
    schemaVersion: 38,
    tags: config.grafanaDashboardTags,
    templating: { list: variables },
    time: { from: config.grafanaTimeFrom, to: 'now' },
    timepicker: {},
    timezone: '',
    title: title,
    uid: uid,
    version: 1,
    weekStart: '',
  },
}
