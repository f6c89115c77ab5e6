package runner

import "strings"

// shellWords splits a /bin/sh command line into its words the way the
// shell would for plain words: blanks and the operators ; & | < > ( )
// separate words, single quotes, double quotes and backslashes quote.
// Expansions ($VAR, globs) are left as they are: a word holding one names
// no path the sandbox can know in advance.
func shellWords(s string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word is open
	)
	end := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\':
			in = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			end()
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	end()
	return words
}
