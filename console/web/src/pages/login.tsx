import { useState } from 'react';
import {
  ActionGroup,
  Alert,
  Button,
  Content,
  Form,
  FormGroup,
  LoginPage,
  TextInput,
} from '@patternfly/react-core';
import * as api from '../api';

// LoginPage takes a bearer token: the console acts as whoever the token
// names, so RBAC holds exactly as with kubectl.
export function Login({ onLogin }: { onLogin: (u: api.User) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    api
      .login(token.trim())
      .then(onLogin)
      .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
      .finally(() => setBusy(false));
  };
  const help = (
    <Content>
      <p>
        Paste a Kubernetes bearer token. Every request the console makes goes to the API server as that token's user, so
        you see and can do exactly what <code>kubectl</code> would let you.
      </p>
      <p>For a ServiceAccount's token:</p>
      <pre>kubectl create token NAME -n NAMESPACE --duration=8h</pre>
      <p>
        <code>virtflow up</code> prints how to get an administrator's token.
      </p>
    </Content>
  );
  return (
    <LoginPage loginTitle="Log in to virtflow" textContent="The virtflow web console" footerListItems={help}>
      <Form onSubmit={submit}>
        {error && <Alert variant="danger" isInline title="Login failed">{error}</Alert>}
        <FormGroup label="Token" isRequired fieldId="token">
          <TextInput
            id="token"
            name="token"
            type="password"
            value={token}
            onChange={(_e, v) => setToken(v)}
            isRequired
            autoComplete="off"
            autoFocus
          />
        </FormGroup>
        <ActionGroup>
          <Button type="submit" variant="primary" isBlock isLoading={busy} isDisabled={busy || !token.trim()}>
            Log in
          </Button>
        </ActionGroup>
      </Form>
    </LoginPage>
  );
}
