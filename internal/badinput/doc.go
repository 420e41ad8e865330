// Package badinput is the one vocabulary for input that aem cannot use: a
// golden dataset, a labels or pairs file, a run directory given to sweep or
// compare, a thresholds file, tool definitions, chat logs. Every reader
// reports a bad record with a [RowError] and every such error wraps
// [ErrInvalid], which the command line maps to exit status 3.
//
// # Where: file, row, line, field
//
// A RowError names the place the user has to look:
//
//   - File: the path or URL as the user gave it (for a file inside a run
//     directory, the directory joined with the file name).
//   - Row: the 0-based index of the record in the file, the number DuckDB
//     reports as file_row_number for Parquet (SELECT * FROM
//     read_parquet('f.parquet', file_row_number = true) WHERE
//     file_row_number = ROW finds it). For CSV, TSV and JSON Lines it is the
//     0-based index of the data record (the header and blank lines do not
//     count). [NoRow] (-1) when the error is not about one record: a
//     missing column, a file that does not decode, a record nested in a
//     JSON document (then Field holds the JSON path).
//   - Line: the 1-based line of a text file (CSV, TSV, JSON, JSON Lines),
//     as an editor shows it; 0 for Parquet and when unknown.
//   - Field: the column, or the JSON path of a value inside a record
//     ("gold_turn.args", "turns[1].turn_no"); empty when not about one.
//
// A message reads "FILE: row 3, line 5, field label: PROBLEM: CAUSE (fix:
// FIX)", each part present only when known.
//
// # What: problem, fix, kind, cause
//
// Problem says what is wrong in the user's terms, Fix what to do about it.
// Kind is an optional finer sentinel of the reading package (for example
// golden.ErrMissingColumn) and Err the underlying cause (a JSON syntax
// error); both are reachable with errors.Is and errors.As.
package badinput
