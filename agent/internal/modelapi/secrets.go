package modelapi

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/agent-oracle/oracle/internal/secret"
)

// publicHeaders are the headers a client sends that hold nothing secret;
// every other header's value is a secret.
var publicHeaders = map[string]bool{
	"Content-Type": true, "Accept": true, "User-Agent": true,
	"Anthropic-Version": true, "Anthropic-Beta": true,
}

// Secrets returns the secrets of a request of c to rawURL: the value of
// every header but the public ones (Content-Type, Anthropic-Version, …)
// and, for an Authorization header, its credentials after the scheme
// (decoded too for Basic); the credentials of the URL (its userinfo whole,
// its password, a user name without password); and the values of its
// query's parameters named like a key, a token, a signature or a password.
func (c Client) Secrets(rawURL string) []string {
	var out []string
	for name, values := range c.Header {
		if publicHeaders[http.CanonicalHeaderKey(name)] {
			continue
		}
		for _, v := range values {
			out = append(out, v)
			if scheme, cred, ok := strings.Cut(v, " "); ok && http.CanonicalHeaderKey(name) == "Authorization" {
				out = append(out, cred)
				if strings.EqualFold(scheme, "Basic") {
					if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
						out = append(out, userinfoSecrets(string(dec))...)
					}
				}
			}
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return out
	}
	if u.User != nil {
		info := u.User.Username()
		if p, ok := u.User.Password(); ok {
			info += ":" + p
		}
		out = append(out, userinfoSecrets(info)...)
	}
	for name, values := range u.Query() {
		if secret.Named(name) {
			out = append(out, values...)
		}
	}
	return out
}

// WithHeaders returns c with a copy of its Header and the headers given as
// name, value pairs set; a pair with an empty value is left out.
func (c Client) WithHeaders(pairs ...string) Client {
	c.Header = c.Header.Clone()
	if c.Header == nil {
		c.Header = http.Header{}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			c.Header.Set(pairs[i], pairs[i+1])
		}
	}
	return c
}

// ConfigSecrets returns the secrets of a model agent's configuration: the
// key and what c's requests to its base URL hold (see Secrets), the base
// URL being raw, or def when raw is empty, as BaseURL reads it.
func ConfigSecrets(c Client, raw, def, variable, key string) []string {
	base, err := BaseURL(raw, def, variable)
	if err != nil {
		base = raw
	}
	return append(c.Secrets(base), key)
}

// userinfoSecrets are the secrets of "user:password": the whole, the
// password, or the user name when there is no password.
func userinfoSecrets(info string) []string {
	user, pass, ok := strings.Cut(info, ":")
	if !ok {
		return []string{user}
	}
	return []string{info, pass}
}

// shownURL is rawURL as a trace or an error shows it: without its
// userinfo, and with the values of its secret parameters replaced.
func shownURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return hideUserinfo(rawURL)
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for name := range q {
			if secret.Named(name) {
				q[name] = []string{"[redacted]"}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// hideURL is err with the request's URL shown as shownURL shows it: an
// *url.Error of the HTTP client names the URL it failed on.
func hideURL(err error, rawURL, shown string) error {
	if e, ok := errors.AsType[*url.Error](err); ok {
		e.URL = shown
		return err
	}
	if s := err.Error(); strings.Contains(s, rawURL) {
		return errors.New(strings.ReplaceAll(s, rawURL, shown))
	}
	return err
}

// hideUserinfo removes what looks like the userinfo of a URL that does not
// parse: the text between "//" and the last "@" before the path.
func hideUserinfo(raw string) string {
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return raw
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	start := len(raw) - len(rest)
	return raw[:start] + "…@" + raw[start+at+1:]
}
