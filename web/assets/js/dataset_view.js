// A report or cube as a paged grid: /app/{projectId}/reports/{id} and /app/{projectId}/cubes/{id}.
// The instance is created with its first page; later pages are fetched from the same instance
// (offset, limit) as the reader scrolls to the end or asks for more, and appended, so the rows
// never shift while reading. A cube that was never published can be published from here.
import { call, json } from './api.js';
import { h, clear } from './dom.js';
import { gridTable, appendGridRows, pagingOf } from './grid.js';

const kRowsPerPage = 200;

export class DatasetView {
  constructor(root, route) {
    this.root = root;
    this.route = route;
    this.path = `/api/v2/${route.kind}/${route.objectId}`;
    this.isClosed = false;
  }

  async open() {
    this.status = h('p', { className: 'rows-status' }, 'Loading…');
    this.title = h('h2', {}, this.route.kind === 'cubes' ? 'Cube' : 'Report');
    this.body = h('div', { className: 'dataset-body' });
    this.element = h('div', {
      className: 'dataset',
      dataset: { datasetId: this.route.objectId, datasetKind: this.route.kind, state: 'loading' },
    }, this.title, this.status, this.body);
    this.root.append(this.element);
    await this.load();
  }

  async load() {
    let first;
    try {
      first = await json('POST', `${this.path}/instances`, {
        project: this.route.projectId,
        query: { offset: 0, limit: kRowsPerPage },
        body: {},
      });
    } catch (error) {
      return this.fail(error);
    }
    if (this.isClosed) return undefined;
    this.instanceId = first.instanceId;
    this.title.textContent = first.name;
    document.title = `${first.name} · Tessera Library`;
    this.table = gridTable(first);
    clear(this.body).append(h('div', { className: 'grid-box tall' }, this.table));
    this.element.dataset.state = 'ready';
    this.paged(first);
    return undefined;
  }

  fail(error) {
    if (this.isClosed) return;
    this.element.dataset.state = 'error';
    this.status.textContent = error.message;
    if (this.route.kind === 'cubes' && error.status === 500) {
      const publish = h('button', { type: 'button', dataset: { action: 'publish' } }, 'Publish the cube');
      publish.addEventListener('click', () => this.publish(publish));
      clear(this.body).append(publish);
    }
  }

  async publish(button) {
    button.disabled = true;
    this.status.textContent = 'Publishing…';
    try {
      await call('POST', `/api/v2/cubes/${this.route.objectId}`, { project: this.route.projectId });
      for (;;) {
        const head = await call('HEAD', `/api/cubes/${this.route.objectId}`, { project: this.route.projectId });
        const status = Number(head.headers.get('X-MSTR-CubeStatus'));
        if (status !== 0 && (status & 1) === 0) break;
        await new Promise((resolve) => { setTimeout(resolve, 500); });
        if (this.isClosed) return;
      }
    } catch (error) {
      this.status.textContent = error.message;
      button.disabled = false;
      return;
    }
    this.element.dataset.state = 'loading';
    await this.load();
  }

  paged(result) {
    const { shown, total } = pagingOf(result);
    this.status.textContent = `${shown} of ${total} rows`;
    if (this.more) this.more.remove();
    if (this.observer) this.observer.disconnect();
    if (shown >= total) return;
    this.more = h('button', { type: 'button', className: 'more', dataset: { action: 'more-rows' } }, 'Show more rows');
    this.more.addEventListener('click', () => this.next(shown));
    this.body.append(this.more);
    // Reaching the end of the grid fetches the next page, as the Library does.
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.next(shown);
    });
    this.observer.observe(this.more);
  }

  async next(offset) {
    if (this.fetching === offset) return;
    this.fetching = offset;
    this.more.disabled = true;
    try {
      const page = await json('GET', `${this.path}/instances/${this.instanceId}`, {
        project: this.route.projectId,
        query: { offset, limit: kRowsPerPage },
      });
      if (this.isClosed) return;
      appendGridRows(this.table, page);
      this.paged(page);
    } catch (error) {
      this.status.textContent = error.message;
      this.more.disabled = false;
      this.fetching = null;
    }
  }

  destroy() {
    this.isClosed = true;
    if (this.observer) this.observer.disconnect();
  }
}
