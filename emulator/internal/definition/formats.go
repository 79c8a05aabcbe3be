package definition

import (
	"fmt"
	"strings"
)

// Formats per destination (fabric-docs, "Supported data formats",
// https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats):
// Json, Csv and Avro go through operators to every destination; Psv and
// Tsv are not parsed, so no operator or DerivedStream takes them and only
// an Eventhouse in DirectIngestion mode or a custom endpoint receives
// them; any other bytes (Raw) go to a custom endpoint only. A destination
// reads its events by its own inputSerialization, or else by the one its
// sources declare; sources that declare different ones leave each
// destination to say which it reads.

// formats gives each destination its serialization and refuses the
// combinations the data-formats page rules out.
func (c compiler) formats(p *Plan) error {
	stream, mixed, err := c.sourceFormat()
	if err != nil {
		return err
	}
	for _, n := range c.t.Streams {
		if _, err := SerializationOf(n); err != nil {
			return err
		}
	}
	if err := c.unparsedThroughOperators(stream); err != nil {
		return err
	}
	for i := range p.Destinations {
		d := &p.Destinations[i]
		own, err := SerializationOf(d.Node)
		if err != nil {
			return err
		}
		switch {
		case own != nil:
			d.Serialization = own
		case mixed != "":
			return BadNode(d.Node, "properties.inputSerialization", "the sources send different formats (%s); say which this destination reads in its inputSerialization", mixed)
		default:
			d.Serialization = stream
		}
		if err := checkDestinationFormat(d, stream); err != nil {
			return err
		}
	}
	return nil
}

// sourceFormat is the serialization the sources declare: nil when none
// does (Json), and mixed naming them when they differ.
func (c compiler) sourceFormat() (s *Serialization, mixed string, err error) {
	var names []string
	seen := false
	for _, n := range c.t.Sources {
		own, err := SerializationOf(n)
		if err != nil {
			return nil, "", err
		}
		if own == nil {
			continue
		}
		names = append(names, fmt.Sprintf("%s %q: %s", n.Type, n.Name, own.Type))
		if seen && !s.equal(own) {
			mixed = "yes"
		}
		if !seen {
			s, seen = own, true
		}
	}
	if mixed != "" {
		return nil, strings.Join(names, ", "), nil
	}
	return s, "", nil
}

// unparsedThroughOperators refuses operators and DerivedStreams on a
// stream of a format Eventstream does not parse.
func (c compiler) unparsedThroughOperators(stream *Serialization) error {
	if stream.Parsed() {
		return nil
	}
	if len(c.t.Operators) > 0 {
		return formatRefusal(c.t.Operators[0], "", stream.Type, "operators transform only Json, Csv and Avro events")
	}
	for _, n := range c.t.Streams {
		if n != c.def0 {
			return formatRefusal(n, "", stream.Type, "a DerivedStream is filled by operators, which transform only Json, Csv and Avro events")
		}
	}
	return nil
}

// checkDestinationFormat refuses destination d (not a custom endpoint)
// for a format it cannot take.
func checkDestinationFormat(d *Destination, stream *Serialization) error {
	own := d.Serialization
	switch own.TypeName() {
	case SerializationPSV, SerializationTSV:
		if d.Target.Type == "Eventhouse" && d.Target.IngestionMode == DirectIngestion {
			return nil
		}
		return formatRefusal(d.Node, "", own.Type, "Psv and Tsv events go only to an Eventhouse in DirectIngestion mode or to a custom endpoint")
	case SerializationRaw:
		return formatRefusal(d.Node, "", own.Type, "events Eventstream does not parse go only to a custom endpoint")
	}
	if !stream.Parsed() {
		return formatRefusal(d.Node, "properties.inputSerialization", stream.Type, "its sources send events Eventstream does not parse")
	}
	return nil
}

// formatRefusal refuses node n for events of format typ.
func formatRefusal(n *Node, field, typ, why string) error {
	at := "eventstream.json " + n.Path
	if field != "" {
		at += "." + field
	}
	return &Refusal{Kind: FormatNotSupported, Field: at,
		Message: fmt.Sprintf("%s %q (%s) cannot take %s events: %s (https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats)", n.Kind, n.Name, n.Type, typ, why)}
}
