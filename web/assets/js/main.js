// The app's entry: routes of the Library in the browser's history, the top bar and the session.
//   <context>/ and <context>/app            Library home
//   <context>/app/login[?next=PATH]          login; back to PATH afterwards
//   <context>/app/{project}/{dashboard}[/{chapterKey}/{pageKey}]   dashboard viewer
//   <context>/app/{project}/reports/{id}, .../cubes/{id}           paged grid
// A session that ends (401 on any call) leads to the login page, then back to where the user was.
import { context, hasSession, json, logout, onSessionExpired } from './api.js';
import { h, clear } from './dom.js';
import { DashboardView } from './dashboard.js';
import { DatasetView } from './dataset_view.js';
import { LibraryView } from './library.js';
import { LoginView } from './login.js';

const app = document.getElementById('app');
const appRoot = `${context}/app`;
let current = null;

function parse(location) {
  const path = location.pathname;
  if (!path.startsWith(appRoot) || (path.length > appRoot.length && path[appRoot.length] !== '/')) {
    return { name: 'root' };
  }
  const segments = path.slice(appRoot.length).split('/').filter(Boolean).map(decodeURIComponent);
  if (segments.length === 0) return { name: 'library' };
  if (segments[0] === 'login') {
    const query = new URLSearchParams(location.search);
    return { name: 'login', next: query.get('next'), isExpired: query.has('expired') };
  }
  const [projectId, second, third, fourth] = segments;
  if ((second === 'reports' || second === 'cubes') && third) {
    return { name: 'dataset', projectId, kind: second, objectId: third };
  }
  if (second) return { name: 'dashboard', projectId, dashboardId: second, chapterKey: third, pageKey: fourth };
  return { name: 'library' };
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

function isSafeNext(path) {
  return typeof path === 'string' && path.startsWith(`${appRoot}`) && !path.startsWith('//');
}

function afterLogin(next) {
  navigate(isSafeNext(next) && !next.startsWith(`${appRoot}/login`) ? next : appRoot, { replace: true });
}

function loginPath(isExpired) {
  const next = location.pathname + location.search;
  return `${appRoot}/login?next=${encodeURIComponent(next)}${isExpired ? '&expired' : ''}`;
}

function topBar() {
  const user = h('span', { className: 'user' });
  const out = h('button', { type: 'button', dataset: { action: 'logout' } }, 'Log out');
  out.addEventListener('click', async () => {
    if (current) current.view.destroy();
    current = null;
    await logout();
    navigate(`${appRoot}/login`);
  });
  json('GET', '/api/sessions/userInfo').then((info) => {
    user.textContent = info.fullName || info.username || '';
  }).catch(() => {});
  return h('header', { className: 'top' },
    h('a', { href: appRoot, className: 'brand' }, 'Tessera Library'), user, out);
}

function isSameDashboard(a, b) {
  return a.name === 'dashboard' && b.name === 'dashboard'
    && a.projectId === b.projectId && a.dashboardId === b.dashboardId;
}

function render() {
  const route = parse(window.location);
  if (route.name === 'root') return navigate(appRoot, { replace: true });
  if (route.name !== 'login' && !hasSession()) return navigate(loginPath(false), { replace: true });
  if (current && isSameDashboard(current.route, route)) {
    current.route = route;
    current.view.update(route);
    return undefined;
  }
  if (current) current.view.destroy();
  clear(app);
  let root = app;
  if (route.name !== 'login') {
    root = h('div', { className: 'content' });
    app.append(topBar(), root);
  }
  const views = { login: LoginView, library: LibraryView, dashboard: DashboardView, dataset: DatasetView };
  const view = new views[route.name](root, route, { navigate, afterLogin });
  current = { route, view };
  Promise.resolve(view.open()).catch((error) => {
    root.append(h('p', { className: 'error' }, error.message));
  });
  return undefined;
}

onSessionExpired(() => {
  if (current && current.route.name === 'login') return;
  if (current) current.view.destroy();
  current = null;
  navigate(loginPath(true));
});

document.addEventListener('click', (event) => {
  const anchor = event.target.closest('a[href]');
  if (!anchor || anchor.target || event.defaultPrevented || event.button !== 0
      || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  const target = new URL(anchor.href);
  if (target.origin !== window.location.origin || !target.pathname.startsWith(appRoot)) return;
  event.preventDefault();
  navigate(target.pathname + target.search);
});

window.addEventListener('popstate', render);
render();
