package kafkaconfig

import (
	"errors"
	"fmt"
	"strings"
)

// jaasEntry is one parsed sasl.jaas.config line:
// `<LoginModule class> <flag> key="value" …;`.
type jaasEntry struct {
	module  string
	flag    string
	options map[string]string
}

// parseJAAS reads a sasl.jaas.config value. Values may be quoted ("…", with
// \" and \\ escapes) or bare words; the line ends with a semicolon.
func parseJAAS(s string) (jaasEntry, error) {
	var e jaasEntry
	toks, err := jaasTokens(s)
	if err != nil {
		return e, err
	}
	if len(toks) < 3 || toks[len(toks)-1] != ";" {
		return e, errors.New(`want "<LoginModule> required key=\"value\" …;"`)
	}
	e.module, e.flag, e.options = toks[0], toks[1], map[string]string{}
	switch e.flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		return e, fmt.Errorf("control flag %q is not required, requisite, sufficient or optional", e.flag)
	}
	rest := toks[2 : len(toks)-1]
	for i := 0; i < len(rest); i += 3 {
		if i+2 >= len(rest) || rest[i+1] != "=" {
			return e, fmt.Errorf("want key=value after %s", e.flag)
		}
		e.options[rest[i]] = rest[i+2]
	}
	return e, nil
}

// jaasTokens splits s into words, quoted strings, "=" and ";".
func jaasTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '=' || c == ';':
			toks = append(toks, string(c))
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("unterminated quoted value")
			}
			toks = append(toks, b.String())
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n=;\"", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}

// moduleKind names the login module class: "plain", "scram", "kerberos",
// or what it is when the emulator does not support it ("oauthbearer", "").
func moduleKind(class string) string {
	short := class[strings.LastIndex(class, ".")+1:]
	switch short {
	case "PlainLoginModule":
		return "plain"
	case "ScramLoginModule":
		return "scram"
	case "Krb5LoginModule":
		return "kerberos"
	case "OAuthBearerLoginModule":
		return "oauthbearer"
	}
	return ""
}
