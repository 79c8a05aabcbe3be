package kafkaconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/magiconair/properties"
)

// EnvPrefix starts the environment variables that carry client properties.
const EnvPrefix = "FABRIC_KAFKA_CONFIG_"

// Properties are Kafka client properties, key to value.
type Properties map[string]string

// ReadFile reads a client.properties file in Java's properties format
// (comments with # or !, = or : or a space between key and value, a
// backslash continuing a line, \uXXXX escapes). ${…} is not expanded: Kafka
// does not expand it either.
func ReadFile(path string) (Properties, error) {
	l := properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}
	p, err := l.LoadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read kafka config: %w", err)
	}
	return Properties(p.Map()), nil
}

// ParseString reads client properties from the text of a properties file.
func ParseString(text string) (Properties, error) {
	l := properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}
	p, err := l.LoadBytes([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("parse kafka config: %w", err)
	}
	return Properties(p.Map()), nil
}

// FromEnv returns the properties of the FABRIC_KAFKA_CONFIG_* variables in
// environ (os.Environ's form), keyed by property name (EnvKey).
func FromEnv(environ []string) Properties {
	out := Properties{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || len(name) == len(EnvPrefix) {
			continue
		}
		out[EnvKey(name)] = value
	}
	return out
}

// EnvKey is the property a FABRIC_KAFKA_CONFIG_* variable sets, by the
// apache/kafka image's rule: strip the prefix, lower-case, then "___" is
// "-", "__" is "_" and "_" is ".".
func EnvKey(name string) string {
	s := strings.ToLower(strings.TrimPrefix(name, EnvPrefix))
	s = strings.ReplaceAll(s, "___", "\x00")
	s = strings.ReplaceAll(s, "__", "\x01")
	s = strings.ReplaceAll(s, "_", ".")
	s = strings.ReplaceAll(s, "\x00", "-")
	return strings.ReplaceAll(s, "\x01", "_")
}

// EnvName is the variable that sets property key (EnvKey's inverse).
func EnvName(key string) string {
	s := strings.ReplaceAll(key, "_", "__")
	s = strings.ReplaceAll(s, "-", "___")
	s = strings.ReplaceAll(s, ".", "_")
	return EnvPrefix + strings.ToUpper(s)
}

// Merge returns base with over's keys laid on top.
func Merge(base, over Properties) Properties {
	out := Properties{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// keys lists p's keys in order.
func (p Properties) keys() []string {
	ks := make([]string, 0, len(p))
	for k := range p {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
