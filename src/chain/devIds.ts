/** The dev network's identity, apart from its genesis so that the start-up can answer it before loading the chain. */
export const DEV_CHAIN_ID = 1337n
/** Besu's dev network answers net_version 2018. */
export const DEV_NETWORK_ID = 2018n
