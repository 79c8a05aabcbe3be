package asaql

// Query is one SELECT statement of the subset.
type Query struct {
	Star        bool   // SELECT *
	Items       []Item // the SELECT list when not *
	Into        string // "" when the query has no INTO
	From        string
	TimestampBy string // a column; "" for arrival time
	Where       Expr   // nil without WHERE
	GroupBy     []Expr // columns and one window call
}

// Item is one SELECT item: an expression and its AS name ("" when none).
type Item struct {
	X     Expr
	Alias string
}

// Expr is an expression of the subset.
type Expr interface{ at() int }

// Column is a column reference; Path joins its segments with dots.
type Column struct {
	Pos  int
	Path string
	Last string // the last segment: the output name
}

// Literal is a string, number (json.Number), boolean or null literal.
type Literal struct {
	Pos   int
	Value any
}

// Call is a function call; Star marks COUNT(*). Name is as written
// ("System.Timestamp" for the dotted form).
type Call struct {
	Pos  int
	Name string
	Args []Expr
	Star bool
}

// Cast is CAST(X AS Type).
type Cast struct {
	Pos  int
	X    Expr
	Type string
}

// Binary is a comparison or AND / OR (Op upper-cased for keywords).
type Binary struct {
	Pos  int
	Op   string
	L, R Expr
}

// Not negates X.
type Not struct {
	Pos int
	X   Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	Pos    int
	X      Expr
	Negate bool
}

// Like is X [NOT] LIKE Pattern.
type Like struct {
	Pos     int
	X       Expr
	Pattern string
	Negate  bool
}

func (e *Column) at() int  { return e.Pos }
func (e *Literal) at() int { return e.Pos }
func (e *Call) at() int    { return e.Pos }
func (e *Cast) at() int    { return e.Pos }
func (e *Binary) at() int  { return e.Pos }
func (e *Not) at() int     { return e.Pos }
func (e *IsNull) at() int  { return e.Pos }
func (e *Like) at() int    { return e.Pos }
