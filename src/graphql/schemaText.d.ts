/** `.graphql` files are imported as text (Bun embeds them in the compiled binary). */
declare module '*.graphql' {
  const text: string
  export default text
}
