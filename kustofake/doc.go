// Package kustofake is an in-process stand-in for a Kusto engine (Azure Data
// Explorer, Fabric Eventhouse, kustainer), served over HTTP on the loopback
// interface so that the official Go SDK, github.com/Azure/azure-kusto-go/azkustodata
// v1.2.3, talks to it exactly as it talks to a real engine.
//
//	srv := kustofake.Start(t)                         // or kustofake.New(); defer srv.Close()
//	kcsb := azkustodata.NewConnectionStringBuilder(srv.URL())
//	client, _ := azkustodata.New(kcsb)
//	client.Mgmt(ctx, "db", kql.New(".create-merge table ['T'] (['kind']:string)"))
//
// # Wire
//
// It serves POST /v1/rest/mgmt (v1 response, {"Tables":[…]}), POST|GET
// /v2/rest/query (v2 frames, one per line, in the order the SDK asserts:
// DataSetHeader, the QueryProperties DataTable, TableHeader/TableFragment…/
// TableCompletion for the primary result, the QueryCompletionInformation
// DataTable, DataSetCompletion), POST|GET /v1/rest/query (v1 response whose
// last table is the TableOfContents) and GET /v1/rest/auth/metadata
// ({"AzureAD":null,"dSTS":null}, which the SDK accepts for an endpoint without
// authentication). Responses carry x-ms-client-request-id (echoed) and
// x-ms-activity-id. Failures answer a OneApiError body,
// {"error":{"code","message","@type","@message","@context","@permanent",…}},
// which the SDK keeps verbatim in its error text.
//
// No authentication is required; an Authorization header is ignored.
//
// # Databases
//
// Databases are isolated namespaces, named case-insensitively. By default a
// request naming an unknown database creates it; WithDatabases pre-creates
// some and WithoutAutoCreate makes an unknown database an error.
// NetDefaultDB (kustainer's default) always exists.
//
// # What it understands
//
// Management commands:
//
//	.create-merge table T (c:type, …) [with (docstring=…, folder=…)]
//	.create table T (c:type, …) [with (…)]
//	.ingest inline into table T [with (format='csv', tags='[…]', ingestIfNotExists='[…]', ignoreFirstRecord=…, creationTime=…)] <| CSV
//	.show tables
//	.show table T schema as json
//	.show table T cslschema
//	.drop table T [ifexists]
//	.show databases
//	.create database D volatile|persist (…) [ifnotexists]
//	.drop database D [ifexists]
//
// Types: string, long (int64), int (int32), real (double), bool (boolean),
// datetime (date), dynamic, guid (uuid, uniqueid), timespan (time), decimal.
//
// .ingest inline parses its data as RFC 4180 CSV: quoted fields may hold
// commas, doubled quotes and line breaks; records end with LF or CRLF; an
// empty field is null, except in a string column where it is the empty string
// (Kusto strings are never null). A field that does not parse as its column's
// type is ingested as null, as Kusto does. A record with more fields than the
// table has columns is refused; a shorter one is padded with nulls. An ingest
// whose ingestIfNotExists names a tag already ingested into the table (as
// ingest-by:<tag> in an earlier ingest's tags) adds nothing and answers the
// all-zero ExtentId.
//
// Queries (on /v2/rest/query and /v1/rest/query), chained with |:
//
//	T
//	T | count
//	T | take n            (limit n)
//	T | project a, b
//	T | where a == literal [and b != literal …]   (string, number, bool literals)
//
// Anything else — another command, operator, function or expression — is
// refused with a 400 whose message says "not supported by this engine"
// (NotSupported), never answered with a wrong result.
//
// # Names and SYN0002
//
// A name may be bare (kind) or quoted (['kind'] or ["kind"], with the string
// literal escapes \\ \' \" \n \r \t \uXXXX); both forms name the same entity.
// Names are checked against Kusto's entity-name rules (1–1024 letters,
// digits, '_', ' ', '.', '-'; no leading or trailing "__").
//
// A bare name the real parser refuses is refused here with the real shape:
// 400, General_BadRequest, @type Kusto.Data.Exceptions.KustoBadRequestException,
// "Syntax error: SYN0002: A recognition error occurred. [line:position=L:P]"
// and an innererror with code SYN0002. The set pinned is RefusedBareNames: the
// nine keywords, of 36 probed, that kustainer itself refused as bare column
// names in .create table (and, kind, or, between, true, false, order,
// project, union). The longer keyword list in Kusto.Language's
// KustoFacts_Keywords.cs is not used: kustainer accepts most of it bare
// (where and summarize among them), and a stand-in refusing what the real
// engine runs would be worse than one that is a little lenient. The same set is
// applied to table names and to names in queries. A name starting with a digit
// (1day) is a literal, not a name, and is refused the same way.
//
// # Faults
//
// FailNext and Inject make the next N matching requests fail (before or after
// they take effect — the latter models a reply lost after the engine committed),
// SetUnavailable answers 503 to everything, and Down/Up close and reopen the
// listener on the same port so that clients see connection refused.
package kustofake
