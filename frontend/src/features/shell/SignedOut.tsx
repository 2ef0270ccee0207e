// SignedOut replaces the page when the API answers 401: the session cookie
// is missing or stale, and only the URL with the token can set it.
export function SignedOut() {
  return (
    <div className="signed-out" role="alert">
      <h1>Steward</h1>
      <p>
        Not signed in: open the URL that <code>steward serve</code> printed (it carries the token).
      </p>
    </div>
  );
}
