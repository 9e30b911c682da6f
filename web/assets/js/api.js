// The public REST API as the app uses it: the same calls any script makes, under the server's
// context path, with the session token in X-MSTR-AuthToken. A 401 on any call but login means the
// session is gone (expired or ended elsewhere): the token is forgotten, the handler set with
// onSessionExpired() runs once, and the call rejects with SessionExpired.
export const context = window.TESSERA_CONTEXT || '';

const kTokenKey = 'tessera.authToken';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

export class SessionExpired extends ApiError {}

let expiredHandler = () => {};
let expiredReported = false;

export function onSessionExpired(handler) {
  expiredHandler = handler;
}

export function hasSession() {
  return Boolean(sessionStorage.getItem(kTokenKey));
}

function url(path, query) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
  }
  const text = search.toString();
  return context + path + (text ? `?${text}` : '');
}

async function errorOf(response) {
  let body = {};
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says enough
  }
  const Type = response.status === 401 ? SessionExpired : ApiError;
  return new Type(response.status, body.code, body.message);
}

// Sends one request; resolves with the Response when it is 2xx or 304, rejects otherwise.
export async function call(method, path, { project, body, query, headers, signal } = {}) {
  const sent = { Accept: 'application/json', ...(headers || {}) };
  const token = sessionStorage.getItem(kTokenKey);
  if (token) sent['X-MSTR-AuthToken'] = token;
  if (project) sent['X-MSTR-ProjectID'] = project;
  let payload;
  if (body !== undefined) {
    sent['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(url(path, query), { method, headers: sent, body: payload, signal });
  if (response.ok) return response;
  const error = await errorOf(response);
  if (error instanceof SessionExpired) reportExpired();
  throw error;
}

export async function json(method, path, options) {
  const response = await call(method, path, options);
  const text = response.status === 204 ? '' : await response.text();
  return text ? JSON.parse(text) : null;
}

function reportExpired() {
  sessionStorage.removeItem(kTokenKey);
  if (expiredReported) return;
  expiredReported = true;
  queueMicrotask(() => expiredHandler());
}

// Standard login (mode 1). Rejects with ApiError (401 ERR003) for wrong credentials.
export async function login(username, password) {
  const response = await fetch(url('/api/auth/login'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ username, password, loginMode: 1 }),
  });
  if (!response.ok) {
    let body = {};
    try {
      body = await response.json();
    } catch {
      // keep the status
    }
    throw new ApiError(response.status, body.code, body.message || 'Login failed');
  }
  const token = response.headers.get('X-MSTR-AuthToken');
  if (!token) throw new ApiError(response.status, undefined, 'The server sent no session token');
  sessionStorage.setItem(kTokenKey, token);
  expiredReported = false;
}

export async function logout() {
  const token = sessionStorage.getItem(kTokenKey);
  sessionStorage.removeItem(kTokenKey);
  if (!token) return;
  try {
    await fetch(url('/api/auth/logout'), { method: 'POST', headers: { 'X-MSTR-AuthToken': token } });
  } catch {
    // the session may already be gone: logging out succeeds either way
  }
}

// Total count of a paged answer (X-MSTR-Total-Count), or null.
export function totalCount(response) {
  const value = response.headers.get('X-MSTR-Total-Count');
  return value === null ? null : Number(value);
}
