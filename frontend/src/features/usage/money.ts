// How usage figures read: tokens with thousands separators, dollars with
// cents (or four places under a cent, where a cheap run would read $0.00).

export function tokens(n: number): string {
  return n.toLocaleString("en-US");
}

export function dollars(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}
