'use strict'
/**
 * The `debug` package as the executable bundles it (scripts/build.ts puts this file in its place).
 * The ethereumjs libraries create their loggers when their modules load and whenever they build a
 * trie, a state cache or a VM; the real package loads `node:tty` and `supports-color` and asks
 * whether stderr is a terminal to choose colours, 6-10 % of the start's CPU. Unless `DEBUG` is set
 * when the process starts, nothing can be enabled (Basalt never calls `enable`), so the loggers are
 * functions that do nothing. With `DEBUG` set, the real package is loaded and behaves as before.
 */
if (process.env.DEBUG) {
  module.exports = require('../node_modules/debug/src/index.js')
} else {
  const noop = () => {}
  const createDebug = (namespace) => {
    const log = () => {}
    log.namespace = namespace
    log.enabled = false
    log.useColors = false
    log.color = 0
    log.diff = 0
    log.log = noop
    log.destroy = () => false
    log.extend = (sub, delimiter) => createDebug(namespace + (delimiter === undefined ? ':' : delimiter) + sub)
    return log
  }
  createDebug.debug = createDebug
  createDebug.default = createDebug
  createDebug.coerce = (value) => value
  createDebug.disable = () => ''
  createDebug.enable = noop
  createDebug.enabled = () => false
  createDebug.destroy = noop
  createDebug.useColors = () => false
  createDebug.names = []
  createDebug.skips = []
  createDebug.formatters = {}
  createDebug.colors = [0]
  createDebug.selectColor = () => 0
  createDebug.inspectOpts = {}
  module.exports = createDebug
}
