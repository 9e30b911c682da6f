// The Library home (/app): the projects the user can see, each with its dashboards, reports and
// cubes, and a search by name across them. Every dashboard link carries data-dashboard-id.
import { json, context } from './api.js';
import { h, clear, debounce } from './dom.js';

const kCubeSubtypes = new Set([776, 779, 780]);

function kindOf(item) {
  if (item.type === 55) return 'dashboards';
  if (item.type === 3) return kCubeSubtypes.has(item.subtype) ? 'cubes' : 'reports';
  return null;
}

function link(project, item, kind) {
  if (kind === 'dashboards') {
    return h('a', { href: `${context}/app/${project.id}/${item.id}`, dataset: { dashboardId: item.id } }, item.name);
  }
  const attribute = kind === 'cubes' ? { cubeId: item.id } : { reportId: item.id };
  return h('a', { href: `${context}/app/${project.id}/${kind}/${item.id}`, dataset: attribute }, item.name);
}

export class LibraryView {
  constructor(root) {
    this.root = root;
    this.generation = 0;
  }

  async open() {
    document.title = 'Tessera Library';
    const search = h('input', { type: 'search', name: 'search', placeholder: 'Search dashboards, reports and cubes', 'aria-label': 'Search by name' });
    this.list = h('div', { className: 'projects' }, h('p', { className: 'loading' }, 'Loading…'));
    this.root.append(h('div', { className: 'library' }, h('div', { className: 'library-head' }, h('h2', {}, 'Library'), search), this.list));
    search.addEventListener('input', debounce(() => this.load(search.value.trim()), 250));
    await this.load('');
  }

  async load(name) {
    const generation = ++this.generation;
    try {
      const projects = await json('GET', '/api/projects');
      const sections = await Promise.all(projects.map((project) => this.projectSection(project, name)));
      if (generation !== this.generation) return;
      clear(this.list).append(...sections);
      if (!projects.length) this.list.append(h('p', {}, 'No project is visible to you.'));
    } catch (error) {
      if (generation === this.generation) clear(this.list).append(h('p', { className: 'error' }, error.message));
    }
  }

  async projectSection(project, name) {
    const found = await json('GET', '/api/searches/results', {
      project: project.id,
      query: { type: [55, 3], pattern: 4, name: name || undefined, limit: 1000 },
    });
    const groups = { dashboards: [], reports: [], cubes: [] };
    for (const item of found.result || []) {
      const kind = kindOf(item);
      if (kind) groups[kind].push(item);
    }
    const titles = { dashboards: 'Dashboards', reports: 'Reports', cubes: 'Cubes' };
    const columns = Object.entries(groups).map(([kind, items]) => h('div', { className: `group ${kind}` },
      h('h4', {}, titles[kind]),
      items.length
        ? h('ul', {}, items.map((item) => h('li', {}, link(project, item, kind),
          item.description ? h('span', { className: 'description' }, item.description) : null)))
        : h('p', { className: 'empty' }, name ? 'No match.' : 'None.')));
    return h('section', { className: 'project', dataset: { projectId: project.id } },
      h('h3', {}, project.name), h('div', { className: 'groups' }, columns));
  }

  destroy() {
    this.generation += 1;
  }
}
