package kustofake

import (
	"fmt"
	"strings"
)

// parseCSV splits RFC 4180 text into records of fields. Records end with LF
// or CRLF; a final line break does not start another record. A quoted field
// may hold commas, line breaks and doubled quotes; a quote anywhere else, or
// text after a closing quote, is malformed.
func parseCSV(data string) ([][]string, error) {
	var records [][]string
	var record []string
	var field strings.Builder
	i, line := 0, 1
	endRecord := func() {
		record = append(record, field.String())
		field.Reset()
		records = append(records, record)
		record = nil
	}
	for i < len(data) {
		if data[i] == '"' {
			// Quoted field: runs to the quote not followed by another quote.
			start := line
			i++
			for {
				if i >= len(data) {
					return nil, fmt.Errorf("record %d: quoted field starting on line %d is not closed", len(records)+1, start)
				}
				c := data[i]
				if c == '"' {
					if i+1 < len(data) && data[i+1] == '"' {
						field.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				if c == '\n' {
					line++
				}
				field.WriteByte(c)
				i++
			}
			switch {
			case i >= len(data):
				endRecord()
			case data[i] == ',':
				record = append(record, field.String())
				field.Reset()
				i++
				if i == len(data) {
					endRecord()
				}
			case data[i] == '\n':
				endRecord()
				line++
				i++
			case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
				endRecord()
				line++
				i += 2
			default:
				return nil, fmt.Errorf("record %d (line %d): text after a closing quote", len(records)+1, line)
			}
			continue
		}
		// Unquoted field: runs to a comma or a line break.
		for i < len(data) {
			c := data[i]
			if c == ',' || c == '\n' || (c == '\r' && i+1 < len(data) && data[i+1] == '\n') {
				break
			}
			if c == '"' {
				return nil, fmt.Errorf("record %d (line %d): a quote inside an unquoted field", len(records)+1, line)
			}
			field.WriteByte(c)
			i++
		}
		switch {
		case i >= len(data):
			endRecord()
		case data[i] == ',':
			record = append(record, field.String())
			field.Reset()
			i++
			if i == len(data) {
				endRecord()
			}
		case data[i] == '\n':
			endRecord()
			line++
			i++
		default: // CRLF
			endRecord()
			line++
			i += 2
		}
	}
	return records, nil
}
