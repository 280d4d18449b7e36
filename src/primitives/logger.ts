/** Structured logger: `log.info('imported block', { number, hash })`, one line per record on stderr. */

export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace'
const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 }
const LEVEL_NAMES: Record<string, LogLevel> = {
  OFF: 'error',
  FATAL: 'error',
  ERROR: 'error',
  WARN: 'warn',
  INFO: 'info',
  DEBUG: 'debug',
  TRACE: 'trace',
  ALL: 'trace',
}

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  debug(msg: string, fields?: Record<string, unknown>): void
  trace(msg: string, fields?: Record<string, unknown>): void
  child(scope: string): Logger
}

let threshold = ORDER.info
const sink = (line: string) => process.stderr.write(`${line}\n`)
/** ANSI colours of the level names (Besu's console highlighting: errors red, warnings yellow). */
const COLORS: Record<LogLevel, string> = { error: '31', warn: '33', info: '32', debug: '36', trace: '90' }
/** Whether level names are coloured: on a terminal unless NO_COLOR is set, as Besu's default; `--color-enabled` forces it. */
let isColored = process.stderr?.isTTY === true && !process.env.NO_COLOR

/** Besu's `--color-enabled`: colour the level names (true) or never (false), wherever the log goes. */
export function setLogColor(isOn: boolean): void {
  isColored = isOn
}

/** Sets the level from Besu's names (`--logging=DEBUG`); returns false for an unknown name. */
export function setLogLevel(name: string): boolean {
  const level = LEVEL_NAMES[name.toUpperCase()]
  if (!level) return false
  threshold = name.toUpperCase() === 'OFF' ? -1 : ORDER[level]
  return true
}

function fmt(v: unknown): string {
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v
  if (v instanceof Error) return JSON.stringify(v.message)
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))
}

/** A logger whose records carry `scope`. */
export function createLogger(scope: string): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] > threshold) return
    const time = new Date().toISOString().slice(11, 23)
    const name = level.toUpperCase().padEnd(5)
    let line = `${time} ${isColored ? `\x1b[${COLORS[level]}m${name}\x1b[0m` : name} [${scope}] ${msg}`
    if (fields) for (const [k, v] of Object.entries(fields)) line += ` ${k}=${fmt(v)}`
    sink(line)
  }
  return {
    error: (m, f) => write('error', m, f),
    warn: (m, f) => write('warn', m, f),
    info: (m, f) => write('info', m, f),
    debug: (m, f) => write('debug', m, f),
    trace: (m, f) => write('trace', m, f),
    child: (s) => createLogger(`${scope}:${s}`),
  }
}
