import type { NodeConfig } from './config.ts'

export async function startNode(_config: NodeConfig): Promise<void> {
  throw new Error('node start is being written')
}
