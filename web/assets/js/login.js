// The login page (standard mode): input[name=username], input[name=password] and a submit button.
import { login } from './api.js';
import { h } from './dom.js';

export class LoginView {
  constructor(root, route, { navigate, afterLogin }) {
    this.root = root;
    this.route = route;
    this.navigate = navigate;
    this.afterLogin = afterLogin;
  }

  open() {
    document.title = 'Log in · Tessera Library';
    const username = h('input', { name: 'username', autocomplete: 'username', required: true, autofocus: true });
    const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password' });
    const submit = h('button', { type: 'submit' }, 'Log in');
    const message = h('p', { className: 'error', role: 'alert' });
    const notice = this.route.isExpired
      ? h('p', { className: 'notice' }, 'Your session has ended. Log in again to go back where you were.')
      : null;
    const form = h('form', { className: 'login', method: 'post' },
      h('h1', {}, 'Tessera Library'), notice,
      h('label', {}, 'Username', username),
      h('label', {}, 'Password', password),
      submit, message);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      submit.disabled = true;
      message.textContent = '';
      try {
        await login(username.value, password.value);
      } catch (error) {
        message.textContent = error.status === 401 ? 'Wrong username or password.' : error.message;
        submit.disabled = false;
        return;
      }
      this.afterLogin(this.route.next);
    });
    this.root.append(h('div', { className: 'login-page' }, form));
  }

  destroy() {}
}
