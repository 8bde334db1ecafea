import { useEffect, useRef, useState } from 'react';
import { Alert, Button, EmptyState, EmptyStateBody, Label } from '@patternfly/react-core';
import { Terminal } from '@xterm/xterm';
import { paths, streamProtocols, websocketURL } from '../api';

type Phase = 'connecting' | 'connected' | 'closed';

// SerialConsole attaches a terminal to the VMI's serial port through
// virt-api's console subresource: bytes typed go out as binary frames, the
// guest's output comes back the same way.
export function SerialConsole({ namespace, name, running }: { namespace: string; name: string; running: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>('connecting');
  const [closeReason, setCloseReason] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!running || !host.current) return;
    const term = new Terminal({
      convertEol: false,
      cursorBlink: true,
      fontFamily: '"Red Hat Mono", monospace',
      fontSize: 14,
      scrollback: 5000,
    });
    term.open(host.current);
    term.focus();
    setPhase('connecting');
    setCloseReason(undefined);

    const ws = new WebSocket(websocketURL(paths.vmiStream(namespace, name, 'console')), streamProtocols);
    ws.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    ws.onopen = () => {
      setPhase('connected');
      // A prompt already printed before we attached is not replayed; a
      // newline makes the guest print a fresh one.
      ws.send(encoder.encode('\r'));
    };
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      term.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data));
    };
    ws.onclose = (e) => {
      setPhase('closed');
      setCloseReason(e.reason || (e.code === 1000 ? undefined : `connection closed (${e.code})`));
    };
    const send = (s: string) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(s));
    };
    const onData = term.onData(send);
    // onBinary carries bytes xterm does not encode as UTF-8 (some mouse
    // reports); each char code is one byte.
    const onBinary = term.onBinary((s) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff));
    });
    return () => {
      onData.dispose();
      onBinary.dispose();
      ws.onclose = null;
      ws.close();
      term.dispose();
    };
  }, [namespace, name, running, attempt]);

  if (!running) {
    return (
      <EmptyState titleText="The virtual machine is not running" headingLevel="h3">
        <EmptyStateBody>Start it to use its serial console.</EmptyStateBody>
      </EmptyState>
    );
  }
  return (
    <>
      <div style={{ marginBottom: 'var(--pf-t--global--spacer--sm)' }}>
        <Label color={phase === 'connected' ? 'green' : phase === 'closed' ? 'grey' : 'blue'} isCompact data-console-state={phase}>
          {phase === 'connected' ? 'Connected' : phase === 'closed' ? 'Disconnected' : 'Connecting'}
        </Label>{' '}
        {phase === 'closed' && (
          <Button variant="link" isInline onClick={() => setAttempt((a) => a + 1)}>
            Reconnect
          </Button>
        )}
      </div>
      {phase === 'closed' && closeReason && <Alert variant="warning" isInline isPlain title={closeReason} />}
      <div ref={host} className="virtflow-serial-console" data-testid="serial-console" style={{ height: '32em', background: '#000', padding: '4px' }} />
    </>
  );
}
