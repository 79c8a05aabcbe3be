// Package asaql reads the subset of the Azure Stream Analytics query
// language an Eventstream SQL operator node runs in the emulator, and
// compiles a query into pipeline operator specs (Filter, GroupBy,
// ManageFields) in the JSON shape pipeline.Parse accepts.
//
// The subset, after Microsoft's Stream Analytics query language reference
// (learn.microsoft.com/stream-analytics-query/stream-analytics-query-language-reference)
// and the SQL node of Fabric's eventstream.json examples ("SELECT * INTO
// [MyStream] FROM [MyNode]"):
//
//	SELECT * | item [, item]...
//	[INTO output] FROM input [TIMESTAMP BY column]
//	[WHERE condition]
//	[GROUP BY column [, column]..., window]
//
// Names are plain or bracketed ([My Stream]); keywords are case-insensitive.
// A SELECT item is a column (dotted names reach into objects; the output
// column is named by the last segment unless AS names it), CAST(column AS
// bigint|float|nvarchar(max)|bit|datetime), a call of one of the scalar
// functions the pipeline computes (Concat, Len, Lower, Upper, Substring, ...,
// on columns and literals, with AS), and, with GROUP BY, the aggregates
// COUNT(*), COUNT, SUM, AVG, MIN, MAX of a column and System.Timestamp()
// (the window's end). A condition combines comparisons of a column with a
// literal (=, !=, <>, <, <=, >, >=), IS [NOT] NULL and LIKE with a pattern
// that is a prefix, suffix or infix ('abc%', '%abc', '%abc%') with AND, OR,
// NOT and parentheses. GROUP BY takes plain columns and exactly one window:
// TumblingWindow(unit, size [, offset]), HoppingWindow(unit, size, hop [,
// offset]), SlidingWindow(unit, size), SessionWindow(unit, timeout,
// maxDuration) (without OVER (PARTITION BY ...)) or SnapshotWindow();
// windows run on arrival time, or on the TIMESTAMP BY column, with the
// semantics package pipeline documents.
//
// Anything else is refused with an *Error naming the construct ("JOIN is
// not supported in the SQL operator"): joins, unions, WITH steps, HAVING,
// CASE, arithmetic, subqueries, APPLY, a session window's OVER clause, functions the pipeline does not compute, and more than one
// statement.
package asaql
