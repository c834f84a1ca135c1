import { z } from 'zod';

// Zod probes `new Function('')` on first parse to decide whether to compile validators. Under
// our CSP (no 'unsafe-eval') that probe is a policy violation, so tell it up front not to try.
// Imported first by main.tsx, before anything parses.
z.config({ jitless: true });
