// The status page's script (embedded at build time; exporter/http/status_page.cpp serves it
// inline, allowed by its SHA-256). It refreshes the page in place from /api/v1/pods, keeping the
// groups the user opened, the filters (the page's query) and the scroll position, and loads the
// rows of an expected group when it is opened. The markup is status_page.cpp's: keep both the
// same (tests/checks/tools/status_page_live.py compares them in chromium). Without script the
// page is whole as served, reloaded by hand.
'use strict';

{
  const byId = (id) => document.getElementById(id);
  const classes = JSON.parse(byId('podwait-classes').textContent).map(
    ([name, expected, meaning], order) => ({ name, expected, meaning, order }));
  const classInfo = new Map(classes.map((c) => [c.name, c]));
  const query = new URLSearchParams(location.search);
  const bool = (v) => (v === 'true' ? true : v === 'false' ? false : null);
  const filter = {
    namespace: query.get('namespace') || '',
    cluster: query.get('cluster') || '',
    class: query.get('class') || '',
    pod: query.get('pod') || '',
    expected: bool(query.get('expected')),
  };
  const every = Math.min(3600, Math.max(1, Number.parseInt(query.get('refresh'), 10) || 30));
  // Expected groups open with their rows: the page asked for one class or one pod.
  const openByDefault = filter.class !== '' || filter.pod !== '';
  const opened = new Map(); // data-rows -> open, as the user left it
  let failedSince = 0;
  let refreshes = 0;

  // ------------------------------------------------------------------------------------------
  // What status_page.cpp's helpers write.

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => (
    { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  const code = (s) => '<code>' + esc(s) + '</code>';
  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : many);
  const needAttention = (n) => n + (n === 1 ? ' needs' : ' need') + ' attention';
  // The first few names of a list, as Names().
  const names = (list) => list.slice(0, 6).map((w) => ' ' + code(w)).join('') +
    (list.length > 6 ? ' and ' + (list.length - 6) + ' more' : '');

  function duration(ms) {
    const s = Math.floor(Math.max(0, ms) / 1000);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm' + (s % 60) + 's';
    if (s < 86400) return Math.floor(s / 3600) + 'h' + Math.floor((s % 3600) / 60) + 'm';
    return Math.floor(s / 86400) + 'd' + Math.floor((s % 86400) / 3600) + 'h';
  }

  // The page with this filter, as a relative link ("./" without one); filterLink escapes it.
  function filterQuery(f) {
    const q = [];
    for (const key of ['namespace', 'cluster', 'class', 'pod']) {
      if (f[key]) q.push(key + '=' + enc(f[key]));
    }
    if (f.expected === true || f.expected === false) q.push('expected=' + f.expected);
    return q.length ? '?' + q.join('&') : './';
  }
  const filterLink = (f) => esc(filterQuery(f));

  // "tidb-2" before "tidb-10", as NaturalLess.
  function naturalLess(a, b) {
    const digit = (c) => c >= '0' && c <= '9';
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (digit(a[i]) && digit(b[j])) {
        let ie = i;
        let je = j;
        while (ie < a.length && digit(a[ie])) ie++;
        while (je < b.length && digit(b[je])) je++;
        let iz = i;
        let jz = j;
        while (iz + 1 < ie && a[iz] === '0') iz++;
        while (jz + 1 < je && b[jz] === '0') jz++;
        const x = a.slice(iz, ie);
        const y = b.slice(jz, je);
        if (x.length !== y.length) return x.length < y.length;
        if (x !== y) return x < y;
        i = ie;
        j = je;
      } else {
        if (a[i] !== b[j]) return a[i] < b[j];
        i++;
        j++;
      }
    }
    if (a.length - i !== b.length - j) return a.length - i < b.length - j;
    return a < b;
  }
  const natural = (a, b) => (naturalLess(a, b) ? -1 : naturalLess(b, a) ? 1 : 0);

  // ------------------------------------------------------------------------------------------
  // The page from a view (the JSON of /api/v1/pods), as status_page.cpp renders it.

  // What one rendering reads: the view, its time, the rows of the groups the user opened.
  function context(view, rows) {
    const now = Date.parse(view.now);
    const ago = (at) => '<time datetime="' + esc(at) + '" title="' + esc(at) + '">' +
      esc(duration(now - Date.parse(at))) + ' ago</time>';
    const timeAgo = (at) => '<time datetime="' + esc(at) + '" title="since ' + esc(at) + '">' +
      esc(duration(now - Date.parse(at))) + '</time>';
    return {
      view, rows, now, ago, timeAgo, health: view.health, current: view.health.current,
      clusterOf: new Map(view.clusters.map((c) => [c.namespace + '/' + c.cluster, c])),
    };
  }
  const runbook = (c) => '<a href="runbook#class-' + esc(c) + '">runbook</a>';

  function dependencies(x, c) {
    let h = '<span class="deps">';
    for (const [name, d] of Object.entries(c.dependencies)) {
      let text = name + ': ' + d.readiness;
      let title = '';
      if (d.readiness === 'ready' && d.readySince) {
        text += ' for ' + duration(x.now - Date.parse(d.readySince));
        title = ' title="ready since ' + esc(d.readySince) + '"';
      } else if (d.reason) {
        text += ' (' + d.reason + ')';
      }
      h += '<span class="dep ' + d.readiness + '"' + title + '>' + esc(text) + '</span>';
    }
    for (const hold of c.holds) {
      let text = 'held: ' + hold;
      if (hold === 'pd_mode_switch') text += ' (' + c.modeSwitch + ')';
      h += '<span class="dep unknown" title="tidb-operator holds this cluster on purpose">' +
        esc(text) + '</span>';
    }
    return h + '</span>';
  }

  function clusterHead(x, c) {
    return '<div class="head"><h3><a href="' + filterLink({ namespace: c.namespace }) +
      '" title="only namespace ' + esc(c.namespace) + '">' + esc(c.namespace) +
      '</a> / <a href="' + filterLink({ cluster: c.tidbCluster }) +
      '" title="only this cluster">' + esc(c.cluster || '(no cluster label)') + '</a></h3>' +
      dependencies(x, c) + '</div>';
  }

  function table(x, name, pods) {
    let h = '<table><thead><tr><th>pod</th><th class="component">component</th><th ' +
      'class="stage">stage</th><th>reason</th><th>waiting</th><th>evidence</th></tr></thead>' +
      '<tbody>';
    for (const p of pods) {
      h += '<tr data-class="' + esc(name) + '"><td class="pod">' + esc(p.pod) +
        '</td><td class="component">' + esc(p.component) + '</td><td class="stage">' +
        esc(p.stage) + '</td><td class="reason">' + esc(p.reason) + '</td><td class="waiting">' +
        x.timeAgo(p.since) + '</td><td class="evidence">' + esc(p.evidence) + '</td></tr>';
    }
    return h + '</tbody></table>';
  }

  function title(x) {
    let s = x.current ? '' : 'not current · ';
    if (x.view.scope.needAttention > 0) s += needAttention(x.view.scope.needAttention) + ' · ';
    return s + 'podwait';
  }

  function evaluated(x) {
    return (x.view.evaluatedAt ? 'evaluated ' + x.ago(x.view.evaluatedAt) + ' · ' : '') +
      (!x.current ? '<b>not current</b>' : x.view.synced ? 'synced' : '<b>not synced</b>');
  }

  function status(x) {
    return healthBanner(x) + summary(x) + chips(x);
  }

  function healthBanner(x) {
    if (x.current) return '';
    let h = '<div class="nodata" role="alert">';
    if (x.health.notSyncedYet.length) {
      h += '<p><b>No data yet</b>: waiting for the first list of' + names(x.health.notSyncedYet) +
        (x.health.startedAt ? ' (the exporter started ' + x.ago(x.health.startedAt) + ')' : '') +
        '.</p>';
    }
    const api = x.health.apiServer;
    if (!api.reachable) {
      h += '<p><b>The API server is unreachable</b>' +
        (api.unreachableSince ? ' for ' + x.timeAgo(api.unreachableSince) : '') + ': ' +
        code(api.address) + (api.error ? ': ' + esc(api.error) : '') + '.</p>';
    }
    if (x.health.outOfSync.length) {
      h += '<p><b>Out of sync</b>: the list or watch of' + names(x.health.outOfSync) +
        ' keeps failing.</p>';
    }
    h += '<p>' + (x.health.lastData
      ? 'The last data arrived ' + x.ago(x.health.lastData) + ': what follows is as of then, '
      : 'No data has arrived from the API server yet: ');
    return h + 'not an all-clear.</p></div>';
  }

  function summary(x) {
    const n = x.view.scope;
    if (x.health.notSyncedYet.length && n.needAttention + n.expected === 0) {
      return '<p class="summary"><span class="warn">No data yet</span></p>';
    }
    const tone = n.needAttention > 0 ? 'bad' : x.current ? 'ok' : 'warn';
    let h = '<p class="summary"><span class="' + tone + '">' + needAttention(n.needAttention) +
      '</span>, <span class="calm">' + n.expected + ' expected</span> <span class="meta">in ' +
      plural(n.clusters, 'cluster', 'clusters');
    if (n.clustersWithProblems > 0) h += ', ' + n.clustersWithProblems + ' with problems';
    if (!x.current) h += ' · as of the last data';
    h += '</span>';
    if (filtered()) {
      let matching = 0;
      for (const c of x.view.clusters) {
        for (const [name, count] of Object.entries(c.waiting)) {
          if (inFilter(name)) matching += count;
        }
      }
      h += ' <span class="filtered">· filtered: ' + matching + ' shown</span>';
    }
    return h + '</p>';
  }

  function chips(x) {
    const byClass = new Map();
    for (const c of x.view.clusters) {
      for (const [name, count] of Object.entries(c.waiting)) {
        byClass.set(name, (byClass.get(name) || 0) + count);
      }
    }
    const all = { ...filter, class: '', expected: null };
    let h = '<nav class="filters"><span class="meta">class:</span><a class="chip' +
      (filter.class ? '' : ' on') + '" href="' + filterLink(all) + '">all</a>';
    for (const name of [...byClass.keys()].sort(byClassOrder)) {
      h += '<a class="chip' + (classInfo.get(name).expected ? '' : ' bad') +
        (filter.class === name ? ' on' : '') + '" href="' + filterLink({ ...all, class: name }) +
        '">' + esc(name) + ' ' + byClass.get(name) + '</a>';
    }
    if (filter.namespace || filter.cluster || filter.pod) {
      h += '<span class="meta">showing' +
        (filter.namespace ? ' namespace ' + code(filter.namespace) : '') +
        (filter.cluster ? ' cluster ' + code(filter.cluster) : '') +
        (filter.pod ? ' pod ' + code(filter.pod) : '') + '</span>';
    }
    if (filtered()) h += '<a href="./">clear filters</a>';
    return h + '</nav>';
  }

  function main(x) {
    const groups = groupsOf(x);
    let attention = 0;
    let expected = 0;
    for (const g of groups) {
      for (const a of g.attention) attention += a.pods.length;
      for (const e of g.expected) expected += e.count;
    }
    let h = '';
    if (filter.pod) {
      for (const p of x.view.pods) h += podDetail(x, p);
    }
    if (attention + expected === 0) h += empty(x);
    if (attention > 0) {
      h += '<h2 class="part" id="attention">Needs attention · ' +
        plural(attention, 'pod', 'pods') + '</h2>';
      for (const g of groups) if (g.attention.length) h += attentionSection(x, g);
    }
    if (expected > 0) {
      h += '<h2 class="part" id="expected">Expected waits · ' +
        plural(expected, 'pod', 'pods') + '</h2>';
      for (const g of groups) if (g.expected.length) h += expectedSection(x, g);
    }
    return h + quiet(groups);
  }

  // Every shown cluster, its attention groups (rows from the view's pods) and expected groups
  // (counts from clusters[].waiting; rows from the view's pods when open by default, else from
  // the opened groups' rows).
  function groupsOf(x) {
    const pods = new Map();
    for (const p of x.view.pods) {
      const key = p.namespace + '/' + p.cluster + '/' + p.class;
      if (!pods.has(key)) pods.set(key, []);
      pods.get(key).push(p);
    }
    const out = [];
    for (const c of x.view.clusters) {
      const g = { cluster: c, attention: [], expected: [] };
      for (const name of Object.keys(c.waiting).sort(byClassOrder)) {
        if (!inFilter(name)) continue;
        const own = (pods.get(c.namespace + '/' + c.cluster + '/' + name) || [])
          .sort((a, b) => natural(a.pod, b.pod));
        if (!classInfo.get(name).expected) {
          g.attention.push({ name, pods: own });
          continue;
        }
        const key = filterQuery({ namespace: c.namespace, cluster: c.cluster, class: name });
        const open = opened.has(key) ? opened.get(key) : openByDefault;
        const loaded = openByDefault ? own : x.rows.get(key);
        g.expected.push({
          name, count: c.waiting[name], link: esc(key), open, pods: open ? loaded : null,
        });
      }
      if (g.attention.length || g.expected.length || !narrowed()) out.push(g);
    }
    return out.sort((a, b) => (a.cluster.namespace !== b.cluster.namespace
      ? natural(a.cluster.namespace, b.cluster.namespace)
      : natural(a.cluster.cluster, b.cluster.cluster)));
  }

  function attentionSection(x, g) {
    let h = '<section class="cluster attention">' + clusterHead(x, g.cluster);
    for (const a of g.attention) {
      h += '<h4 class="class-' + esc(a.name) + '" title="' + esc(classInfo.get(a.name).meaning) +
        '">' + esc(a.name) + ' <span class="tag">needs attention · ' + a.pods.length +
        '</span>' + runbook(a.name) + '</h4>' + table(x, a.name, a.pods);
    }
    return h + '</section>';
  }

  function expectedSection(x, g) {
    let h = '<section class="cluster expected">' + clusterHead(x, g.cluster);
    for (const e of g.expected) {
      h += '<details class="class-' + esc(e.name) + '" data-rows="' + e.link + '"' +
        (e.open ? ' open' : '') + '><summary title="' + esc(classInfo.get(e.name).meaning) +
        '"><b>' + esc(e.name) + '</b> <span class="tag">' + plural(e.count, 'pod', 'pods') +
        ', expected wait</span> · ' + runbook(e.name) + '</summary>';
      h += e.pods ? table(x, e.name, e.pods)
        : '<p class="rows"><a href="' + e.link + '">show the ' + plural(e.count, 'pod', 'pods') +
          '</a></p>';
      h += '</details>';
    }
    return h + '</section>';
  }

  // A dependency row's holders (status_page.cpp AppendPodDetail), the unexpected ones first.
  function heldBy(p) {
    return (p.heldBy || []).map((h) =>
      '<div class="heldby">held by <b>' + esc(h.pod) + '</b>: ' + esc(h.class) + '/' +
      esc(h.reason) + (classInfo.get(h.class).expected ? ' (expected)' : ' (needs attention)') +
      '</div>').join('');
  }

  function podDetail(x, p) {
    const expected = classInfo.get(p.class).expected;
    const c = x.clusterOf.get(p.namespace + '/' + p.cluster);
    return '<section class="pod' + (expected ? ' expected' : ' attention') + '"><h2><a href="' +
      filterLink({ namespace: p.namespace }) + '">' + esc(p.namespace) + '</a> / ' +
      esc(p.pod) + '</h2><dl><dt>class</dt><dd><b>' + esc(p.class) + '</b> · ' +
      (expected ? 'expected wait' : 'needs attention') + ': ' +
      esc(classInfo.get(p.class).meaning) + ' · ' + runbook(p.class) +
      '</dd><dt>reason</dt><dd>' + esc(p.reason) + '</dd><dt>evidence</dt><dd>' +
      esc(p.evidence) + '</dd><dt>since</dt><dd>' + esc(p.stage) + ' for ' + x.timeAgo(p.since) +
      ', ' + esc(p.class) + ' for ' + x.timeAgo(p.classSince) + '</dd><dt>what holds it</dt><dd>' +
      heldBy(p) + (c ? dependencies(x, c) : '') + '</dd><dt>cluster</dt><dd><a href="' +
      filterLink({ cluster: p.tidbCluster }) + '">' +
      esc(p.namespace + ' / ' + (p.cluster || '(no cluster label)')) + '</a>, component ' +
      esc(p.component) + '</dd></dl></section>';
  }

  function empty(x) {
    let h = '<div class="empty"><p><b>';
    if (!x.current) {
      h += 'Nothing to show, and that is not an all-clear: the data is not current (above).';
    } else if (filter.pod) {
      h += 'Pod ' + esc(filter.namespace ? filter.namespace + '/' + filter.pod : filter.pod) +
        ' is not waiting: it is Ready, gone, or not watched here.';
    } else {
      h += filtered() ? 'No waiting pods match this filter.' : 'No waiting pods.';
    }
    return h + '</b></p><p>' + byId('podwait-watching').innerHTML + '</p><p>' +
      (x.current ? 'Every watch has synced: the lists are complete.'
        : 'See above why the lists are not complete.') + '</p></div>';
  }

  function quiet(groups) {
    const q = groups.filter((g) => !g.attention.length && !g.expected.length);
    if (!q.length) return '';
    return '<h2 class="part" id="quiet">No pod waits · ' + plural(q.length, 'cluster', 'clusters') +
      '</h2><p class="quiet">' + q.map((g) => '<a href="' +
        filterLink({ cluster: g.cluster.tidbCluster }) + '">' +
        esc(g.cluster.namespace + '/' + g.cluster.cluster) + '</a>').join(' · ') + '</p>';
  }

  const byClassOrder = (a, b) => classInfo.get(a).order - classInfo.get(b).order;
  const filtered = () => Object.values(filter).some((v) => v !== '' && v !== null);
  // A class, pod or expected filter: only clusters with such pods are shown.
  const narrowed = () => filter.class !== '' || filter.pod !== '' || filter.expected !== null;
  function inFilter(name) {
    if (filter.class && filter.class !== name) return false;
    return filter.expected === null || classInfo.get(name).expected === filter.expected;
  }

  // ------------------------------------------------------------------------------------------
  // Fetching and refreshing.

  async function json(url) {
    const r = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  }

  // The page's own filter; without a class or pod filter only the rows that need attention
  // (the expected groups are counts until opened).
  function viewUrl() {
    const f = filterQuery(filter);
    let q = f === './' ? '' : f;
    if (!openByDefault && filter.expected === null) q += (q ? '&' : '?') + 'expected=false';
    return 'api/v1/pods' + q;
  }

  function openedGroups() {
    const keys = [];
    for (const d of document.querySelectorAll('details[data-rows]')) {
      if (d.open && !openByDefault) keys.push(d.dataset.rows);
    }
    return keys;
  }

  async function refresh() {
    try {
      const keys = openedGroups();
      const [view, ...groups] = await Promise.all(
        [json(viewUrl()), ...keys.map((k) => json('api/v1/pods' + k))]);
      const rows = new Map(keys.map((k, i) => [k, groups[i].pods]));
      const x = context(view, rows);
      const y = window.scrollY;
      document.title = title(x);
      byId('evaluated').innerHTML = evaluated(x);
      byId('status').innerHTML = status(x);
      byId('main').innerHTML = main(x);
      window.scrollTo(0, y);
      failedSince = 0;
      document.body.dataset.refreshes = String(++refreshes);
    } catch (e) {
      failed(e);
    }
    setTimeout(refresh, every * 1000);
  }

  // The exporter did not answer: what is shown gets older, and the page says so first.
  function failed(e) {
    if (!failedSince) failedSince = Date.now();
    let banner = byId('refresh-failed');
    if (!banner) {
      banner = document.createElement('div');
      banner.id = 'refresh-failed';
      banner.className = 'nodata';
      banner.setAttribute('role', 'alert');
      byId('status').prepend(banner);
    }
    banner.innerHTML = '<p><b>Not current</b>: this page could not refresh for ' +
      esc(duration(Date.now() - failedSince)) + ' (' + esc(e.message) + '): what it shows is ' +
      'older than it says, not an all-clear.</p>';
    for (const ok of document.querySelectorAll('.summary .ok')) ok.className = 'warn';
  }

  // A collapsed expected group opened: load its rows.
  document.addEventListener('toggle', async (ev) => {
    const d = ev.target;
    if (!(d instanceof HTMLDetailsElement) || !d.dataset.rows) return;
    opened.set(d.dataset.rows, d.open);
    const placeholder = d.querySelector('p.rows');
    if (!d.open || !placeholder) return;
    try {
      const view = await json('api/v1/pods' + d.dataset.rows);
      const name = d.className.replace(/^class-/, '');
      const pods = view.pods.sort((a, b) => natural(a.pod, b.pod));
      if (!d.contains(placeholder)) return; // a refresh came first
      const rows = document.createElement('template');
      rows.innerHTML = table(context(view, new Map()), name, pods);
      placeholder.replaceWith(rows.content);
    } catch (e) {
      placeholder.textContent = 'could not load the rows: ' + e.message;
    }
  }, true);

  byId('refresh').textContent = 'refreshes in place every ' + duration(every * 1000);
  setTimeout(refresh, every * 1000);
}
