package faults

import (
	"errors"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// kafkaCodes maps Kafka's error names (NOT_ENOUGH_REPLICAS) to codes.
var kafkaCodes = func() map[string]int16 {
	m := map[string]int16{}
	for code := int16(1); code < 200; code++ {
		var ke *kerr.Error
		if errors.As(kerr.ErrorForCode(code), &ke) && ke.Code == code {
			m[ke.Message] = code
		}
	}
	return m
}()

// KafkaCode returns the code of a Kafka error name (case-insensitive).
func KafkaCode(name string) (int16, bool) {
	c, ok := kafkaCodes[strings.ToUpper(strings.TrimSpace(name))]
	return c, ok
}
