import { settingsUsage, takeSettingFlags } from '../../runtime/settings/flags';
import type { SettingsPatch } from '../../runtime/settings/schema';

/** What `npm run serve -- …` was asked for. */
export interface ServeArgs {
  /** Runtime settings from flags (`--seats 4`), over the ones kept from the last session. */
  settings: SettingsPatch;
  port: number;
  host: string;
  dataDir: string | null;
  extraHostNames: string[];
  /** `--no-key`: listen beyond loopback without FIRST_FRAME_API_KEY anyway. */
  isKeyWaived: boolean;
  /** `--discover-models on|off`: list Ollama, LM Studio and Hugging Face cache models (null: as kept). */
  discoverModels: boolean | null;
  isHelp: boolean;
}

/** The default port of the headless host. */
export const DEFAULT_SERVE_PORT = 5180;

/** Usage text printed by --help and after a bad flag. */
export const SERVE_USAGE = `usage: npm run serve -- [--port N] [--host ADDR] [--data-dir DIR] [--allow-host NAME] [--no-key] [--discover-models on|off] [settings…]
  --port N          port to listen on (default ${DEFAULT_SERVE_PORT}; 0 picks a free one)
  --host ADDR       bind address (default 127.0.0.1; 0.0.0.0 exposes the app to your network,
                    and then needs FIRST_FRAME_API_KEY, which every route requires when set)
  --no-key          allow a --host beyond loopback without FIRST_FRAME_API_KEY (anyone who can
                    reach the port can then use the model and read every conversation)
  --data-dir DIR    database and user models folder (default .first-frame in the repository)
  --allow-host NAME also accept requests addressed to NAME (e.g. a LAN host name)
  --discover-models on|off
                    also list the models of Ollama, LM Studio and the Hugging Face cache on
                    this machine, read in place (default: as last chosen in Settings; off)
runtime settings (default shown; they override the ones the Settings panel kept):
${settingsUsage()}`;

/** Parses the serve flags; throws an Error whose message a user can act on. */
export function parseServeArgs(all: readonly string[]): ServeArgs {
  const { patch, rest: argv } = takeSettingFlags(all);
  const args: ServeArgs = {
    settings: patch,
    port: DEFAULT_SERVE_PORT,
    host: '127.0.0.1',
    dataDir: null,
    extraHostNames: [],
    isKeyWaived: false,
    discoverModels: null,
    isHelp: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = splitFlag(argv[i]!);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--help' || flag === '-h') args.isHelp = true;
    else if (flag === '--port') args.port = parsePort(value());
    else if (flag === '--host') args.host = value();
    else if (flag === '--data-dir') args.dataDir = value();
    else if (flag === '--allow-host') args.extraHostNames.push(value());
    else if (flag === '--no-key' && inline === undefined) args.isKeyWaived = true;
    else if (flag === '--discover-models') args.discoverModels = parseOnOff(flag, value());
    else throw new Error(`unknown option ${flag}`);
  }
  return args;
}

function splitFlag(arg: string): [string, string | undefined] {
  const at = arg.indexOf('=');
  return at > 0 ? [arg.slice(0, at), arg.slice(at + 1)] : [arg, undefined];
}

function parseOnOff(flag: string, text: string): boolean {
  if (text === 'on' || text === 'off') return text === 'on';
  throw new Error(`${flag} takes on or off, got "${text}"`);
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0–65535, got "${text}"`);
  return port;
}
