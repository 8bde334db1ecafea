// The console's entry: PatternFly's base styles (fonts and design tokens)
// and xterm's are bundled into app.css, so the page needs nothing from the
// network beyond the console's own server.
import '@patternfly/react-core/dist/styles/base.css';
import '@xterm/xterm/css/xterm.css';
import { createRoot } from 'react-dom/client';
import { App } from './app';

createRoot(document.getElementById('root')!).render(<App />);
