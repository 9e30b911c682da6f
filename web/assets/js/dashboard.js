// The dashboard viewer: /app/{projectId}/{dashboardId}[/{chapterKey}/{pageKey}]; an unknown
// chapter or page in the URL falls back to the current chapter's first page.
//
// Opening creates an instance with parallel rendering asked for (the server grants it when the
// dashboard allows it) while the saved definition is read; the chapters, pages, selectors and one
// placeholder per visualization appear with the definition, and each visualization of the page
// is read on its own request and drawn as soon as its answer arrives: the page never waits for
// its slowest visualization. A selector change is one PUT filters, after which only the
// visualizations it targets are read again. Results are kept per visualization until a change
// targets it, so going back to a page draws it at once.
import { call, json, totalCount, context, hasSession } from './api.js';
import { h, clear } from './dom.js';
import { renderSelector, showSummary } from './selectors.js';
import { VisualizationView } from './visualization.js';

// "ATTR:key" (colon form) and "hkey;ATTR" name the same element; selections compare in h form.
function canonicalElementId(id) {
  const text = String(id || '');
  const colon = text.indexOf(':');
  if (!text.startsWith('h') && colon === 32) return `h${text.slice(33)};${text.slice(0, 32)}`;
  return text;
}

function selectedElementIds(selection) {
  const ids = [];
  const visit = (node) => {
    if (!node) return;
    if (node.type === 'elements') node.elements.forEach((element) => ids.push(canonicalElementId(element.id)));
    (node.operands || []).forEach(visit);
  };
  visit(selection && selection.expression);
  return ids;
}

export class DashboardView {
  constructor(root, route, { navigate }) {
    this.root = root;
    this.route = route;
    this.navigate = navigate;
    this.views = new Map();       // visualization key -> VisualizationView of the shown page
    this.results = new Map();     // visualization key -> first page of its current result
    this.selectorParts = new Map();
    this.vizSelections = new Map();  // source visualization key -> selected element ids
    this.isClosed = false;
    this.api = `/api/dossiers/${route.dashboardId}`;
  }

  async open() {
    const { projectId, dashboardId } = this.route;
    this.element = h('div', { className: 'dashboard', dataset: { dashboardId } },
      h('p', { className: 'loading' }, 'Opening the dashboard…'));
    this.root.append(this.element);
    const body = { persistViewState: true, enableParallelRendering: true };
    const instance = json('POST', `${this.api}/instances`, { project: projectId, body });
    this.instanceId = instance.then((created) => {
      this.mid = created.mid;
      if (this.isClosed) this.deleteInstance();
      return created.mid;
    });
    this.instanceId.catch(() => {});
    try {
      this.definition = await json('GET', `/api/v2/dossiers/${dashboardId}/definition`, { project: projectId });
    } catch (error) {
      return this.fail(error);
    }
    if (this.isClosed) return undefined;
    document.title = `${this.definition.name} · Tessera Library`;
    this.layout();
    this.showPage(this.route.chapterKey, this.route.pageKey);
    try {
      await this.instanceId;
    } catch (error) {
      return this.fail(error);
    }
    return undefined;
  }

  fail(error) {
    if (this.isClosed) return;
    clear(this.element).append(h('p', { className: 'error' }, `This dashboard cannot be opened: ${error.message}`));
  }

  layout() {
    this.pageNav = h('nav', { className: 'pages', 'aria-label': 'Chapters and pages' });
    this.filterPanel = h('aside', { className: 'filter-panel', 'aria-label': 'Filters' });
    this.canvasSelectors = h('div', { className: 'canvas-selectors' });
    this.canvas = h('div', { className: 'viz-grid' });
    clear(this.element).append(
      h('div', { className: 'dashboard-head' }, h('h2', {}, this.definition.name), this.pageNav),
      h('div', { className: 'dashboard-body' }, this.filterPanel,
        h('main', { className: 'canvas' }, this.canvasSelectors, this.canvas)),
    );
  }

  pageUrl(chapterKey, pageKey) {
    const { projectId, dashboardId } = this.route;
    return `${context}/app/${projectId}/${dashboardId}/${chapterKey}/${pageKey}`;
  }

  // The chapter and page to show: the ones asked for when they exist, else the current chapter's
  // first page.
  resolvePage(chapterKey, pageKey) {
    const chapters = this.definition.chapters;
    const chapter = chapters.find((c) => c.key === chapterKey)
      || chapters.find((c) => c.pages.some((p) => p.key === pageKey))
      || chapters.find((c) => c.key === this.definition.currentChapter) || chapters[0];
    if (!chapter) return null;
    const page = chapter.pages.find((p) => p.key === pageKey) || chapter.pages[0];
    return page ? { chapter, page } : null;
  }

  renderNav() {
    clear(this.pageNav);
    for (const chapter of this.definition.chapters) {
      const links = chapter.pages.map((page) => h('a', {
        href: this.pageUrl(chapter.key, page.key),
        className: page === this.page ? 'active' : '',
        'aria-current': page === this.page ? 'page' : undefined,
        dataset: { chapterKey: chapter.key, pageKey: page.key },
      }, page.name || page.key));
      this.pageNav.append(h('div', { className: 'chapter' },
        h('span', { className: 'chapter-name' }, chapter.name || chapter.key), links));
    }
  }

  update(route) {
    this.route = route;
    if (this.definition) this.showPage(route.chapterKey, route.pageKey);
  }

  showPage(chapterKey, pageKey) {
    const found = this.resolvePage(chapterKey, pageKey);
    if (!found) {
      clear(this.canvas).append(h('p', {}, 'This dashboard has no page.'));
      return;
    }
    const chapterChanged = found.chapter !== this.chapter;
    if (found.page === this.page) return;
    this.chapter = found.chapter;
    this.page = found.page;
    this.renderNav();
    if (chapterChanged) this.renderSelectors(this.filterPanel, this.chapter.filters || []);
    this.renderSelectors(this.canvasSelectors, this.page.selectors || []);
    this.renderVisualizations();
  }

  selectorContext() {
    return {
      apply: (entry) => this.apply(entry),
      elements: async (key, pattern, offset, limit) => {
        const mid = await this.instanceId;
        const response = await call('GET', `${this.api}/instances/${mid}/elements`, {
          query: { filterKey: key, searchPattern: pattern || undefined, offset, limit },
        });
        const items = await response.json();
        return { items, total: totalCount(response) ?? items.length };
      },
      formsOf: (attributeId) => {
        for (const dataset of this.definition.datasets || []) {
          const found = (dataset.availableObjects || []).find((o) => o.id === attributeId);
          if (found && found.forms) return found.forms;
        }
        return [];
      },
      current: async (key) => this.findSelector(await this.instanceDefinition(), key),
    };
  }

  renderSelectors(container, selectors) {
    clear(container);
    for (const selector of selectors) {
      const parts = renderSelector(selector, this.selectorContext());
      if (!parts) continue;
      this.selectorParts.set(selector.key, parts);
      container.append(parts.element);
    }
    container.hidden = container.childElementCount === 0;
  }

  renderVisualizations() {
    for (const view of this.views.values()) view.destroy();
    this.views.clear();
    clear(this.canvas);
    for (const visualization of this.page.visualizations) {
      const view = new VisualizationView(visualization, {
        fetchPage: (offset, limit) => this.readVisualization(visualization.key, offset, limit),
        isSelectable: Boolean(visualization.selector),
        onPick: (category) => this.pick(visualization, category),
      });
      const selection = this.vizSelections.get(visualization.key)
        ?? selectedElementIds(visualization.selector && visualization.selector.currentSelection);
      this.vizSelections.set(visualization.key, selection);
      view.setSelection(selection);
      this.views.set(visualization.key, view);
      this.canvas.append(view.element);
    }
    for (const view of this.views.values()) view.load();
  }

  async readVisualization(key, offset, limit) {
    if (offset === 0 && this.results.has(key)) return this.results.get(key);
    const mid = await this.instanceId;
    const result = await json('GET',
      `/api/v2/dossiers/${this.route.dashboardId}/instances/${mid}/chapters/${this.chapter.key}/visualizations/${key}`,
      { query: { offset, limit } });
    if (offset === 0) this.results.set(key, result);
    return result;
  }

  findSelector(definition, key) {
    for (const chapter of definition.chapters) {
      for (const filter of chapter.filters || []) if (filter.key === key) return { chapter, selector: filter };
      for (const page of chapter.pages) {
        for (const selector of page.selectors || []) if (selector.key === key) return { chapter, selector };
        for (const viz of page.visualizations) {
          if (viz.selector && viz.key === key) return { chapter, selector: viz.selector };
        }
      }
    }
    return null;
  }

  // The visualization keys a filter entry acts on: its targets, or every visualization of its
  // chapter when it has none (a filter-panel selector or a chapter-wide parameter).
  targetsOf(entry) {
    const found = this.findSelector(this.definition, entry.visualizationKey || entry.key);
    if (!found) return [];
    const targets = (found.selector.targets || []).map((target) => target.key);
    if (targets.length) return targets;
    return found.chapter.pages.flatMap((page) => page.visualizations.map((v) => v.key));
  }

  async apply(entry) {
    const mid = await this.instanceId;
    await call('PUT', `${this.api}/instances/${mid}/filters`, { body: [entry] });
    this.redraw(this.targetsOf(entry));
    this.refreshSummaries();
  }

  redraw(keys) {
    for (const key of keys) this.results.delete(key);
    for (const key of keys) {
      const view = this.views.get(key);
      if (view) view.load();
    }
  }

  async instanceDefinition() {
    const mid = await this.instanceId;
    return json('GET', `/api/v2/dossiers/${this.route.dashboardId}/instances/${mid}/definition`);
  }

  async refreshSummaries() {
    let fresh;
    try {
      fresh = await this.instanceDefinition();
    } catch {
      return;  // summaries stay as they were; the change itself is applied
    }
    for (const [key, parts] of this.selectorParts) {
      const found = this.findSelector(fresh, key);
      showSummary(parts, found && found.selector);
    }
  }

  // A click on a chart element of a visualization used as a filter: selects that element for
  // the visualization's targets, or clears the selection when it was the one selected.
  async pick(visualization, category) {
    if (!category || !category.id || !category.attribute) return;
    const selected = this.vizSelections.get(visualization.key) || [];
    const isSame = selected.length === 1 && selected[0] === category.id;
    const currentSelection = isSame
      ? { selectionStatus: 'unfiltered' }
      : {
        selectionStatus: 'included',
        expression: {
          operator: 'In',
          operands: [
            { type: 'attribute', id: category.attribute.id, name: category.attribute.name },
            { type: 'elements', elements: [{ id: category.id, name: category.name }] },
          ],
        },
      };
    const source = this.views.get(visualization.key);
    try {
      await this.apply({ visualizationKey: visualization.key, currentSelection });
    } catch (error) {
      if (source) source.status.textContent = error.message;
      return;
    }
    const selection = isSame ? [] : [category.id];
    this.vizSelections.set(visualization.key, selection);
    if (source && source.result) {
      source.setSelection(selection);
      source.draw(source.result).catch((error) => source.showError(error));
    }
  }

  deleteInstance() {
    if (!this.mid || !hasSession()) return;
    call('DELETE', `${this.api}/instances/${this.mid}`).catch(() => {});
  }

  destroy() {
    this.isClosed = true;
    for (const view of this.views.values()) view.destroy();
    this.views.clear();
    this.deleteInstance();
  }
}
