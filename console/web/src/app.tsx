import { useEffect, useState } from 'react';
import {
  Bullseye,
  Button,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadLogo,
  MastheadMain,
  MastheadToggle,
  Nav,
  NavItem,
  NavList,
  Page,
  PageSidebar,
  PageSidebarBody,
  PageToggleButton,
  Spinner,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { BarsIcon } from '@patternfly/react-icons';
import * as api from './api';
import { forgetAccess, useRoute } from './hooks';
import { routeHash, type Route } from './model/route';
import { CreateVmPage } from './pages/create_vm';
import { DisksPage } from './pages/disks';
import { Login } from './pages/login';
import { OperationsPage } from './pages/operations';
import { OverviewPage } from './pages/overview';
import { VmDetailsPage } from './pages/vm_details';
import { VmListPage } from './pages/vm_list';

type Session = { state: 'checking' } | { state: 'anonymous' } | { state: 'in'; user: api.User };

const nav: { label: string; route: Route; active: (r: Route) => boolean }[] = [
  { label: 'Overview', route: { page: 'overview' }, active: (r) => r.page === 'overview' },
  { label: 'Virtual machines', route: { page: 'vms' }, active: (r) => r.page === 'vms' || r.page === 'vm' || r.page === 'create-vm' },
  { label: 'Disks (DataVolumes)', route: { page: 'disks' }, active: (r) => r.page === 'disks' },
  { label: 'Operations', route: { page: 'operations' }, active: (r) => r.page === 'operations' },
];

function Content({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <OverviewPage />;
    case 'vms':
      return <VmListPage />;
    case 'vm':
      return <VmDetailsPage key={`${route.namespace}/${route.name}`} namespace={route.namespace} name={route.name} tab={route.tab} />;
    case 'create-vm':
      return <CreateVmPage key={route.namespace} namespace={route.namespace} />;
    case 'disks':
      return <DisksPage />;
    case 'operations':
      return <OperationsPage />;
  }
}

export function App() {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const route = useRoute();

  useEffect(() => {
    api.onUnauthorized(() => setSession({ state: 'anonymous' }));
    api
      .me()
      .then((user) => setSession({ state: 'in', user }))
      .catch(() => setSession({ state: 'anonymous' }));
  }, []);

  if (session.state === 'checking') {
    return (
      <Bullseye style={{ height: '100vh' }}>
        <Spinner aria-label="Loading" />
      </Bullseye>
    );
  }
  if (session.state === 'anonymous') {
    return (
      <Login
        onLogin={(user) => {
          forgetAccess();
          setSession({ state: 'in', user });
        }}
      />
    );
  }

  const logout = () => {
    void api.logout().finally(() => {
      forgetAccess();
      setSession({ state: 'anonymous' });
    });
  };
  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadToggle>
          <PageToggleButton isHamburgerButton aria-label="Navigation">
            <BarsIcon />
          </PageToggleButton>
        </MastheadToggle>
        <MastheadBrand>
          <MastheadLogo href="#/" style={{ fontSize: 'var(--pf-t--global--font--size--heading--h3)', fontWeight: 600 }}>
            virtflow
          </MastheadLogo>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar isFullHeight isStatic>
          <ToolbarContent>
            <ToolbarItem align={{ default: 'alignEnd' }} alignSelf="center">
              <span data-testid="user" title={session.user.groups.join(', ')}>
                {session.user.user}
              </span>
            </ToolbarItem>
            <ToolbarItem>
              <Button variant="plain" onClick={logout}>
                Log out
              </Button>
            </ToolbarItem>
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
    </Masthead>
  );
  const sidebar = (
    <PageSidebar>
      <PageSidebarBody>
        <Nav aria-label="Console">
          <NavList>
            {nav.map((n) => (
              <NavItem key={n.label} to={routeHash(n.route)} isActive={n.active(route)}>
                {n.label}
              </NavItem>
            ))}
          </NavList>
        </Nav>
      </PageSidebarBody>
    </PageSidebar>
  );
  return (
    <Page masthead={masthead} sidebar={sidebar} isManagedSidebar>
      <Content route={route} />
    </Page>
  );
}
