package kustofake

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// command is a parsed management command.
type command struct {
	verb       string // create-merge, create, ingest, show-tables, show-schema, show-cslschema, drop-table, show-databases, create-database, drop-database
	name       string // table or database
	columns    []Column
	props      map[string]prop
	ifExists   bool // ifexists / ifnotexists
	data       string
	persistent bool
}

// prop is one with (key=value) property.
type prop struct {
	val      string
	isString bool
}

// parseCommand parses the management commands this engine knows.
func parseCommand(src string) (*command, *engineError) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokCommand {
		return nil, notSupported("a query sent to the management endpoint (send queries to /v2/rest/query): %q", firstLine(src))
	}
	verb := p.tok.text
	if err := p.advance(); err != nil {
		return nil, err
	}
	switch verb {
	case ".create-merge":
		if !p.word("table") {
			return nil, notSupported(".create-merge %s", p.tok.text)
		}
		return p.tableDefinition("create-merge")
	case ".create":
		switch {
		case p.word("table"):
			return p.tableDefinition("create")
		case p.word("database"):
			return p.createDatabase()
		}
		return nil, notSupported(".create %s", p.tok.text)
	case ".ingest":
		return p.ingestInline()
	case ".show":
		return p.show()
	case ".drop":
		return p.drop()
	}
	return nil, notSupported("the command %s", verb)
}

// tableDefinition parses "table T (c:type, …) [with (…)]".
func (p *parser) tableDefinition(verb string) (*command, *engineError) {
	if err := p.advance(); err != nil { // table
		return nil, err
	}
	c := &command{verb: verb}
	var err *engineError
	if c.name, err = p.name(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for !p.punct(")") {
		if len(c.columns) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		col, err := p.name()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		if p.tok.kind != tokIdent {
			return nil, p.fail()
		}
		typ, ok := CanonicalType(p.tok.text)
		if !ok {
			return nil, p.fail()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if seen[col] {
			return nil, badRequest("", "The column '%s' is declared more than once.", col)
		}
		seen[col] = true
		c.columns = append(c.columns, Column{Name: col, Type: typ})
	}
	if err := p.advance(); err != nil { // )
		return nil, err
	}
	if len(c.columns) == 0 {
		return nil, badRequest("", "A table must have at least one column.")
	}
	if c.props, err = p.withProps(); err != nil {
		return nil, err
	}
	for k := range c.props {
		if k != "docstring" && k != "folder" {
			return nil, notSupported("the table property %q", k)
		}
	}
	return c, p.end("." + verb + " table")
}

// withProps parses an optional "with (key=value, …)"; keys are lower-cased.
func (p *parser) withProps() (map[string]prop, *engineError) {
	props := map[string]prop{}
	if !p.word("with") {
		return props, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	for !p.punct(")") {
		if len(props) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		if p.tok.kind != tokIdent {
			return nil, p.fail()
		}
		key := strings.ToLower(p.tok.text)
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectPunct("="); err != nil {
			return nil, err
		}
		var v prop
		switch p.tok.kind {
		case tokString:
			v = prop{val: p.tok.val, isString: true}
		case tokIdent, tokNumber:
			v = prop{val: p.tok.text}
		default:
			return nil, p.fail()
		}
		if _, dup := props[key]; dup {
			return nil, badRequest("", "The property '%s' is given more than once.", key)
		}
		props[key] = v
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return props, p.advance()
}

// ingestInline parses "inline into table T [with (…)] <| data".
func (p *parser) ingestInline() (*command, *engineError) {
	if !p.word("inline") {
		return nil, notSupported(".ingest %s (only .ingest inline is served; there is no data-management service)", p.tok.text)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectWord("into", ".ingest inline"); err != nil {
		return nil, err
	}
	if err := p.expectWord("table", ".ingest inline into"); err != nil {
		return nil, err
	}
	c := &command{verb: "ingest"}
	var err *engineError
	if c.name, err = p.name(); err != nil {
		return nil, err
	}
	if c.props, err = p.withProps(); err != nil {
		return nil, err
	}
	if !p.punct("<|") {
		return nil, p.fail()
	}
	// Everything after <| is data. Blanks and one line break right after the
	// operator separate it from the command.
	rest := p.lx.src[p.lx.pos:]
	rest = strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(rest, "\r\n") {
		rest = rest[2:]
	} else if strings.HasPrefix(rest, "\n") {
		rest = rest[1:]
	}
	c.data = rest
	return c, nil
}

// show parses the .show commands.
func (p *parser) show() (*command, *engineError) {
	switch {
	case p.word("tables"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &command{verb: "show-tables"}, p.end(".show tables")
	case p.word("databases"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &command{verb: "show-databases"}, p.end(".show databases")
	case p.word("table"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		c := &command{}
		var err *engineError
		if c.name, err = p.name(); err != nil {
			return nil, err
		}
		switch {
		case p.word("schema"):
			if err := p.advance(); err != nil {
				return nil, err
			}
			if err := p.expectWord("as", ".show table T schema"); err != nil {
				return nil, err
			}
			if err := p.expectWord("json", ".show table T schema as"); err != nil {
				return nil, err
			}
			c.verb = "show-schema"
			return c, p.end(".show table T schema as json")
		case p.word("cslschema"):
			if err := p.advance(); err != nil {
				return nil, err
			}
			c.verb = "show-cslschema"
			return c, p.end(".show table T cslschema")
		}
		if p.tok.kind == tokEOF {
			return nil, notSupported(".show table T (try .show table T schema as json)")
		}
		return nil, notSupported(".show table T %s", p.tok.text)
	}
	return nil, notSupported(".show %s", p.tok.text)
}

// drop parses .drop table and .drop database.
func (p *parser) drop() (*command, *engineError) {
	var verb string
	switch {
	case p.word("table"):
		verb = "drop-table"
	case p.word("database"):
		verb = "drop-database"
	default:
		return nil, notSupported(".drop %s", p.tok.text)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	c := &command{verb: verb}
	var err *engineError
	if c.name, err = p.name(); err != nil {
		return nil, err
	}
	if p.word("ifexists") {
		c.ifExists = true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return c, p.end("." + strings.ReplaceAll(verb, "-", " "))
}

// createDatabase parses "database D volatile|persist (…) [ifnotexists]".
func (p *parser) createDatabase() (*command, *engineError) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	c := &command{verb: "create-database"}
	var err *engineError
	if c.name, err = p.name(); err != nil {
		return nil, err
	}
	switch {
	case p.word("volatile"):
		if err := p.advance(); err != nil {
			return nil, err
		}
	case p.word("persist"):
		c.persistent = true
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		for !p.punct(")") {
			if p.tok.kind != tokString && !p.punct(",") {
				return nil, p.fail()
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	default:
		return nil, notSupported(".create database without volatile or persist")
	}
	if p.word("ifnotexists") {
		c.ifExists = true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return c, p.end(".create database")
}

// execCommand runs a parsed command against the store; s.mu is held.
func (s *Server) execCommand(dbName string, c *command) (*result, *engineError) {
	switch c.verb {
	case "show-databases":
		return s.databasesResult(nil), nil
	case "create-database":
		key := strings.ToLower(c.name)
		if s.dbs[key] != nil {
			if !c.ifExists {
				return nil, badRequest("Kusto.Data.Exceptions.EntityAlreadyExistsException", "Entity ID '%s' of kind 'Database' already exists.", c.name)
			}
		} else {
			s.dbs[key] = newDatabase(c.name)
		}
		return s.databasesResult(s.dbs[key]), nil
	case "drop-database":
		key := strings.ToLower(c.name)
		if s.dbs[key] == nil {
			if !c.ifExists {
				return nil, entityNotFound("Database", c.name)
			}
		} else {
			delete(s.dbs, key)
		}
		return s.databasesResult(nil), nil
	}

	d, err := s.lookupDB(dbName)
	if err != nil {
		return nil, err
	}
	switch c.verb {
	case "create-merge", "create":
		t := d.tables[c.name]
		if t == nil {
			t = &table{name: c.name, tags: map[string]bool{}}
			t.columns = append(t.columns, c.columns...)
			d.tables[c.name] = t
		} else if c.verb == "create-merge" {
			for _, col := range c.columns {
				i := t.column(col.Name)
				if i < 0 {
					continue
				}
				if have := t.columns[i].Type; have != col.Type {
					return nil, badRequest("", "Column '%s' already exists in table '%s' with type '%s'; .create-merge cannot change it to '%s'.", col.Name, t.name, have, col.Type)
				}
			}
			for _, col := range c.columns {
				if t.column(col.Name) < 0 {
					t.columns = append(t.columns, col)
				}
			}
		}
		if f, ok := c.props["folder"]; ok {
			t.folder = f.val
		}
		if f, ok := c.props["docstring"]; ok {
			t.doc = f.val
		}
		return schemaResult(d, t), nil

	case "ingest":
		return s.ingest(d, c)

	case "show-tables":
		res := &result{columns: []Column{{"TableName", TypeString}, {"DatabaseName", TypeString}, {"Folder", TypeString}, {"DocString", TypeString}}}
		for _, name := range sortedKeys(d.tables) {
			t := d.tables[name]
			res.rows = append(res.rows, []any{t.name, d.name, t.folder, t.doc})
		}
		return res, nil

	case "show-schema", "show-cslschema":
		t := d.tables[c.name]
		if t == nil {
			return nil, entityNotFound("Table", c.name)
		}
		if c.verb == "show-schema" {
			return schemaResult(d, t), nil
		}
		parts := make([]string, len(t.columns))
		for i, col := range t.columns {
			n := col.Name
			if !isPlainName(n) {
				n = "['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(n) + "']"
			}
			parts[i] = n + ":" + col.Type
		}
		res := &result{columns: []Column{{"TableName", TypeString}, {"Schema", TypeString}, {"DatabaseName", TypeString}, {"Folder", TypeString}, {"DocString", TypeString}}}
		res.rows = [][]any{{t.name, strings.Join(parts, ", "), d.name, t.folder, t.doc}}
		return res, nil

	case "drop-table":
		if d.tables[c.name] == nil {
			if !c.ifExists {
				return nil, entityNotFound("Table", c.name)
			}
		}
		delete(d.tables, c.name)
		res := &result{columns: []Column{{"TableName", TypeString}, {"DatabaseName", TypeString}}}
		for _, name := range sortedKeys(d.tables) {
			res.rows = append(res.rows, []any{name, d.name})
		}
		return res, nil
	}
	return nil, notSupported("the command %s", c.verb)
}

// isPlainName reports whether n can be written bare.
func isPlainName(n string) bool {
	if n == "" || refusedBare[n] || isDigit(n[0]) {
		return false
	}
	for _, r := range n {
		if !isIdentPart(r) {
			return false
		}
	}
	return true
}

// schemaResult is the answer of .show table T schema as json (and of
// .create-merge table).
func schemaResult(d *database, t *table) *result {
	type col struct {
		Name    string
		Type    string
		CslType string
	}
	schema := struct {
		Name           string
		OrderedColumns []col
	}{Name: t.name, OrderedColumns: []col{}}
	for _, c := range t.columns {
		schema.OrderedColumns = append(schema.OrderedColumns, col{c.Name, schemaType[c.Type], c.Type})
	}
	b, _ := json.Marshal(schema)
	return &result{
		columns: []Column{{"TableName", TypeString}, {"Schema", TypeString}, {"DatabaseName", TypeString}, {"Folder", TypeString}, {"DocString", TypeString}},
		rows:    [][]any{{t.name, string(b), d.name, t.folder, t.doc}},
	}
}

// databasesResult lists one database, or every database when only is nil.
func (s *Server) databasesResult(only *database) *result {
	res := &result{columns: []Column{
		{"DatabaseName", TypeString}, {"PersistentStorage", TypeString}, {"Version", TypeString},
		{"IsCurrent", TypeBool}, {"DatabaseAccessMode", TypeString}, {"PrettyName", TypeString},
		{"CurrentUserIsUnrestrictedViewer", TypeBool}, {"DatabaseId", TypeGUID},
	}}
	add := func(d *database) {
		res.rows = append(res.rows, []any{d.name, "", "v1.0", false, "ReadWrite", "", false, d.id})
	}
	if only != nil {
		add(only)
		return res
	}
	for _, k := range sortedKeys(s.dbs) {
		add(s.dbs[k])
	}
	return res
}

var zeroExtent = "00000000-0000-0000-0000-000000000000"

// ingest runs .ingest inline; s.mu is held.
func (s *Server) ingest(d *database, c *command) (*result, *engineError) {
	res := &result{columns: []Column{{"ExtentId", TypeGUID}}}
	t := d.tables[c.name]
	if t == nil {
		return nil, entityNotFound("Table", c.name)
	}
	var tags, ifNotExists []string
	ignoreFirst := false
	for _, key := range sortedKeys(c.props) {
		v := c.props[key]
		switch key {
		case "format":
			if !strings.EqualFold(v.val, "csv") {
				return nil, notSupported("the ingestion format %q (only csv)", v.val)
			}
		case "tags", "ingestifnotexists":
			var list []string
			if err := json.Unmarshal([]byte(v.val), &list); err != nil {
				return nil, badRequest("Kusto.Data.Exceptions.KustoBadRequestException", "The ingestion property '%s' must be a JSON array of strings: %v", key, err)
			}
			if key == "tags" {
				tags = list
			} else {
				ifNotExists = list
			}
		case "ignorefirstrecord":
			b, err := strconv.ParseBool(v.val)
			if err != nil {
				return nil, badRequest("", "The ingestion property 'ignoreFirstRecord' must be true or false, not %q.", v.val)
			}
			ignoreFirst = b
		case "creationtime":
		default:
			return nil, notSupported("the ingestion property %q", key)
		}
	}
	for _, tag := range ifNotExists {
		if t.tags["ingest-by:"+tag] {
			res.rows = [][]any{{zeroExtent}}
			return res, nil
		}
	}
	records, err := parseCSV(c.data)
	if err != nil {
		return nil, badRequest("Kusto.Data.Exceptions.KustoBadRequestException", "Stream_InvalidCsvFormat: the inline data is not valid CSV: %v", err)
	}
	if ignoreFirst && len(records) > 0 {
		records = records[1:]
	}
	rows := make([][]any, 0, len(records))
	for i, rec := range records {
		if len(rec) > len(t.columns) {
			return nil, badRequest("Kusto.Data.Exceptions.KustoBadRequestException", "Stream_WrongNumberOfFields: record %d has %d fields; table '%s' has %d columns.", i+1, len(rec), t.name, len(t.columns))
		}
		row := make([]any, len(t.columns))
		for j, col := range t.columns {
			field := ""
			if j < len(rec) {
				field = rec[j]
			}
			row[j] = parseField(col.Type, field)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		res.rows = [][]any{{zeroExtent}}
		return res, nil
	}
	t.rows = append(t.rows, rows...)
	t.extents++
	for _, tag := range tags {
		t.tags[tag] = true
	}
	res.rows = [][]any{{uuid.NewString()}}
	return res, nil
}

// firstLine is the first line of s, shortened for messages.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
