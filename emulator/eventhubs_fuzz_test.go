package emulator

import (
	"testing"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
)

// FuzzStoredEvent reads any Kafka record as an AMQP receiver gets it: no
// panic, the value kept, binary properties for a record no AMQP client
// sent, and a (UTF-8) string property an AMQP client sent read back as it
// was.
func FuzzStoredEvent(f *testing.F) {
	f.Add([]byte(`{"n":1}`), "h", []byte("xyz"), false, "s")
	f.Add([]byte{}, "p", []byte{0xa1, 3, 's', 'd', 'k'}, true, "")
	f.Add([]byte("v"), "x", []byte{0x61}, true, "é")
	f.Fuzz(func(t *testing.T, value []byte, key string, header []byte, typed bool, prop string) {
		r := &kgo.Record{Value: value, Headers: []kgo.RecordHeader{{Key: key, Value: header}}}
		if typed {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: amqpPropertiesHeader, Value: header})
		}
		ev := storedEvent(r)
		if string(ev.Body) != string(value) {
			t.Fatalf("body %q, want %q", ev.Body, value)
		}
		if key != amqpPropertiesHeader {
			v, ok := ev.ApplicationProperties.Get(key)
			if b, isBin := v.([]byte); !ok || (!typed && (!isBin || string(b) != string(header))) {
				t.Fatalf("header %q = %#v (present %v)", key, v, ok)
			}
		}
		sent, err := recordOf(eventhubs.Event{Body: value, ApplicationProperties: amqp.Map{{Key: "s", Value: prop}}})
		if err != nil {
			t.Fatal(err)
		}
		// AMQP strings are UTF-8: the codec refuses to decode others, and
		// such a property is read back as its bytes.
		if got, _ := storedEvent(sent).ApplicationProperties.Get("s"); utf8.ValidString(prop) && got != prop {
			t.Fatalf("property %q read back as %#v", prop, got)
		}
	})
}
