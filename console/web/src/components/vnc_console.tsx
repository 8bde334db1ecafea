import { useEffect, useRef, useState } from 'react';
import { Alert, Button, EmptyState, EmptyStateBody, Label } from '@patternfly/react-core';
import RFB from '@novnc/novnc';
import { paths, streamProtocols, websocketURL } from '../api';

type Phase = 'connecting' | 'connected' | 'closed';

// VncConsole shows the VMI's display through virt-api's vnc subresource,
// which relays the RFB stream in binary frames under plain.kubevirt.io
// (virt-api offers no other subprotocol, so noVNC must ask for that one).
export function VncConsole({ namespace, name, running }: { namespace: string; name: string; running: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const rfb = useRef<RFB>(undefined);
  const [phase, setPhase] = useState<Phase>('connecting');
  const [closeReason, setCloseReason] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!running || !host.current) return;
    setPhase('connecting');
    setCloseReason(undefined);
    const r = new RFB(host.current, websocketURL(paths.vmiStream(namespace, name, 'vnc')), { wsProtocols: streamProtocols });
    r.scaleViewport = true;
    r.background = '#000';
    rfb.current = r;
    let disconnected = false;
    const onConnect = () => setPhase('connected');
    const onDisconnect = (e: Event) => {
      disconnected = true;
      setPhase('closed');
      const clean = (e as CustomEvent<{ clean?: boolean }>).detail?.clean;
      setCloseReason(clean ? undefined : 'The display connection was lost');
    };
    const onSecurity = (e: Event) => {
      setCloseReason(`VNC security negotiation failed: ${(e as CustomEvent<{ reason?: string }>).detail?.reason ?? ''}`);
    };
    r.addEventListener('connect', onConnect);
    r.addEventListener('disconnect', onDisconnect);
    r.addEventListener('securityfailure', onSecurity);
    return () => {
      r.removeEventListener('connect', onConnect);
      r.removeEventListener('disconnect', onDisconnect);
      r.removeEventListener('securityfailure', onSecurity);
      // noVNC logs an error when a closed connection is closed again.
      if (!disconnected) r.disconnect();
      rfb.current = undefined;
    };
  }, [namespace, name, running, attempt]);

  if (!running) {
    return (
      <EmptyState titleText="The virtual machine is not running" headingLevel="h3">
        <EmptyStateBody>Start it to see its display.</EmptyStateBody>
      </EmptyState>
    );
  }
  return (
    <>
      <div style={{ marginBottom: 'var(--pf-t--global--spacer--sm)' }}>
        <Label color={phase === 'connected' ? 'green' : phase === 'closed' ? 'grey' : 'blue'} isCompact data-vnc-state={phase}>
          {phase === 'connected' ? 'Connected' : phase === 'closed' ? 'Disconnected' : 'Connecting'}
        </Label>{' '}
        <Button variant="secondary" size="sm" isDisabled={phase !== 'connected'} onClick={() => rfb.current?.sendCtrlAltDel()}>
          Send Ctrl+Alt+Del
        </Button>{' '}
        {phase === 'closed' && (
          <Button variant="link" isInline onClick={() => setAttempt((a) => a + 1)}>
            Reconnect
          </Button>
        )}
      </div>
      {closeReason && <Alert variant="warning" isInline isPlain title={closeReason} />}
      <div ref={host} data-testid="vnc-console" style={{ height: '40em', background: '#000' }} />
    </>
  );
}
