package golden

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFilter stands between a JSON input and encoding/json, which holds a
// whole row (a dialog object, a turn) in memory and decodes it several
// times (the extra keys' pass, the object, its turns, their sides) before
// validate measures its values: a dialog with one 50 MB reply took 50 s
// and 1 GB to refuse. The filter streams the input once and leaves out the
// content of each string that validate would refuse, so the decoder sees a
// small row:
//
//   - a text value that validate limits (a dialog's dialog_id; a turn's
//     turn and tags; a side's response, tool_id, action, name and args)
//     given as a JSON string whose decoded length is over the limit is
//     replaced by a short stand-in, and that length is kept for validate
//     to measure instead (sizes; the count follows encoding/json's
//     decoding: escapes, surrogate pairs, invalid UTF-8 as U+FFFD);
//   - inside a side's args written as JSON (an object, or what the agent
//     wrote instead), a string over the limit in raw bytes is replaced
//     likewise and the raw length of the whole args kept: args are
//     measured as the text they are written as; inside a dialog's tools
//     the same, and the length kept is that of the compact text (without
//     the white space between tokens), as tools are measured.
//
// Nothing else changes: keys, structure, numbers and every other string
// (extra keys' values, which are not limited) pass as they are, so the
// decoder meets the same syntax errors on the same lines, and the record
// and validate say what they say without the filter. Where a string is
// not valid JSON (a control character, a bad escape, the end of the
// input) the filter passes the input on unchanged from the point where
// the decoder stops, and stops filtering. A value over the limit that is
// no long string (args of many short values, a number) is not replaced:
// validate measures it after the decoder has read it whole.
type jsonFilter struct {
	src      io.Reader
	rows     rowKind
	rowDepth int // nesting depth of a row: 0 for JSON Lines, 1 in a top-level array
	limit    int // bytes a value may hold; longer strings are left out
	names    textNames

	buf  []byte
	out  []byte // filtered bytes not yet read
	r    int    // out[:r] was read
	err  error  // the source's error, returned once out is drained
	off  int64  // bytes of the source consumed before buf's
	done bool   // broken: everything passes unchanged from here on

	stack  []frame
	tools  int  // index in stack of the tools being read, -1 when none
	scalar bool // inside a number or literal
	str    stringScan
	row    int                    // ordinal of the current row (-1 before the first)
	sizes  map[int]map[string]int // row ordinal -> path -> length of a value left out
}

// rowKind is what the rows of the filtered input are.
type rowKind uint8

const (
	rowsDialogs rowKind = iota // dialog objects (JSON Lines, a JSON array of dialogs)
	rowsTurns                  // turn objects (a JSON array of turns)
	rowsAny                    // unknown: every long string value is left out, no sizes kept (the extra keys' pass)
)

// place is where a value sits in a row, as far as the filter cares.
type place uint8

const (
	placeOther  place = iota
	placeTop          // the top-level array holding the rows
	placeDialog       // a dialog object
	placeTurns        // a dialog's turns
	placeTurn         // a turn object
	placeSide         // a turn's gold_turn or predict_turn
	placeTags         // a turn's tags
	placeText         // a text value validate limits
	placeArgs         // a side's args
	placeTools        // a dialog's tools
	placeInText       // anything inside args or tools
	placeAny          // rowsAny: anywhere
)

// frame is an open object or array.
type frame struct {
	open      byte   // '{' or '['
	place     place  //
	seg       string // its key or index in a tracked parent ("turns", "[2]")
	key       string // an object's current key (tracked objects only)
	n         int    // an array's elements begun
	wantKey   bool   // an object's next string is a key
	start     int64  // placeArgs, placeTools: offset of its first byte
	space     int64  // placeTools: bytes of white space between its tokens
	shortened bool   // placeArgs, placeTools: a string inside was left out
}

// stringHandling is what the filter does with a string.
type stringHandling uint8

const (
	strPass    stringHandling = iota // passes unchanged
	strKey                           // a key of a tracked object: passes, and is read
	strDecoded                       // held until its decoded length is known to fit
	strRaw                           // held until its raw length is known to fit
)

// stringScan is the string being scanned.
type stringScan struct {
	active  bool
	how     stringHandling
	place   place
	seg     string
	start   int64  // offset of the opening quote
	from    int    // strDecoded, strRaw: index of the opening quote in the chunk being fed, -1 when set apart or left out
	hold    []byte // strDecoded, strRaw: the raw bytes set apart while they may fit; strKey: the key's first bytes
	leftOut bool   // over the limit: its content is dropped
	long    bool   // strKey: longer than any name the filter knows
	esc     []byte // the escape begun ("\\", "\\u", "\\u0"...)
	n       int    // decoded (strDecoded) or raw (strRaw) bytes so far
	high    bool   // strDecoded: a \u escape of a high surrogate awaits its pair
	utf     [utf8.UTFMax]byte
	nutf    int // strDecoded: bytes of a UTF-8 sequence not yet complete
}

// maxFilterDepth is past encoding/json's nesting limit (10000): the
// decoder refuses the input before the filter would need a deeper stack.
const maxFilterDepth = 10001

// maxKeyBytes bounds a key the filter reads; the names it looks for are
// shorter.
const maxKeyBytes = 64

// textNames are the keys that hold a turn's limited text values, derived
// from turnTexts: turn-level keys, side keys, and a side's text keys.
type textNames struct {
	turn, sides, side map[string]bool
}

func newTextNames() textNames {
	n := textNames{turn: map[string]bool{}, sides: map[string]bool{}, side: map[string]bool{}}
	for _, t := range turnTexts {
		if side, key, ok := strings.Cut(t.key, "."); ok {
			n.sides[side], n.side[key] = true, true
		} else {
			n.turn[t.key] = true
		}
	}
	return n
}

// newJSONFilter filters src, whose rows are of kind rows at depth rowDepth,
// leaving out strings over limit bytes (limit > 0).
func newJSONFilter(src io.Reader, rows rowKind, rowDepth, limit int) *jsonFilter {
	return &jsonFilter{src: src, rows: rows, rowDepth: rowDepth, limit: limit, names: newTextNames(),
		buf: make([]byte, 64<<10), row: -1, tools: -1, sizes: map[int]map[string]int{}}
}

// Read implements io.Reader.
func (f *jsonFilter) Read(p []byte) (int, error) {
	for f.r == len(f.out) {
		if f.err != nil {
			return 0, f.err
		}
		f.out, f.r = f.out[:0], 0
		n, err := f.src.Read(f.buf)
		f.feed(f.buf[:n])
		f.off += int64(n)
		if err != nil {
			f.finish()
			f.err = err
		}
	}
	n := copy(p, f.out[f.r:])
	f.r += n
	return n, nil
}

// take returns the lengths of the values left out of row ordinal row (the
// row-th row value of the input, from 0), by their path in the row
// ("turns[1].predict_turn.args", "dialog_id"), and forgets them. Nil when
// none was.
func (f *jsonFilter) take(row int) map[string]int {
	if f == nil {
		return nil
	}
	m := f.sizes[row]
	delete(f.sizes, row)
	return m
}

// heldKind reports whether the current string is one the filter may
// leave out.
func (f *jsonFilter) heldKind() bool {
	return f.str.active && (f.str.how == strDecoded || f.str.how == strRaw)
}

// feed filters b onto f.out. Bytes pass in runs, b[mark:i]; a string
// that may be left out passes with them while it fits and ends in b, and
// is set apart (stringScan.hold) only where it runs past the end of b.
func (f *jsonFilter) feed(b []byte) {
	mark := 0 // b[mark:i] passes unchanged; -1 while a string is set apart
	if f.heldKind() {
		mark = -1
	}
	i := 0
	for i < len(b) && !f.done {
		if f.str.active {
			i, mark = f.scanString(b, i, mark)
			continue
		}
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			f.scalar = false
			if f.tools >= 0 {
				f.stack[f.tools].space++
			}
		case ':':
			f.scalar = false
		case ',':
			f.scalar = false
			if top := f.top(); top != nil && top.open == '{' {
				top.wantKey = true
			}
		case '{', '[':
			f.scalar = false
			if len(f.stack) >= maxFilterDepth {
				f.done = true
				continue
			}
			pl, seg := f.begin()
			fr := frame{open: c, place: containerPlace(pl, c), seg: seg, wantKey: c == '{', start: f.off + int64(i)}
			if fr.place == placeTools {
				f.tools = len(f.stack)
			}
			f.stack = append(f.stack, fr)
		case '}', ']':
			f.scalar = false
			top := f.top()
			if top == nil || top.open != c-2 { // '{'+2 == '}', '['+2 == ']'
				f.done = true
				continue
			}
			if (top.place == placeArgs || top.place == placeTools) && top.shortened {
				f.record(f.path(), int(f.off+int64(i)+1-top.start-top.space))
			}
			if top.place == placeTools {
				f.tools = -1
			}
			f.stack = f.stack[:len(f.stack)-1]
		case '"':
			f.scalar = false
			f.beginString(i)
		default:
			if !f.scalar {
				f.scalar = true
				f.begin()
			}
		}
		i++
	}
	if s := &f.str; f.heldKind() && !s.leftOut && s.from >= 0 && !f.done {
		// The string runs past b: set it apart until it is known to fit.
		f.out = append(f.out, b[mark:s.from]...)
		s.hold = append(s.hold[:0], b[s.from:]...)
		s.from, mark = -1, -1
	}
	if mark >= 0 {
		f.out = append(f.out, b[mark:]...)
	}
}

// finish ends the input: a string set apart is passed on as it was, for
// the decoder to find it cut short.
func (f *jsonFilter) finish() {
	if f.heldKind() && !f.done {
		f.fail(nil, 0, -1)
	}
}

func (f *jsonFilter) top() *frame {
	if len(f.stack) == 0 {
		return nil
	}
	return &f.stack[len(f.stack)-1]
}

// begin notes that a value begins and returns its place and its path
// segment in a tracked parent.
func (f *jsonFilter) begin() (place, string) {
	d := len(f.stack)
	switch {
	case d == f.rowDepth:
		f.row++
		switch f.rows {
		case rowsDialogs:
			return placeDialog, ""
		case rowsTurns:
			return placeTurn, ""
		}
		return placeAny, ""
	case d < f.rowDepth:
		return placeTop, ""
	}
	top := &f.stack[d-1]
	switch top.place {
	case placeArgs, placeTools, placeInText:
		return placeInText, ""
	case placeAny:
		return placeAny, ""
	case placeTurns, placeTags:
		seg := "[" + strconv.Itoa(top.n) + "]"
		top.n++
		if top.place == placeTurns {
			return placeTurn, seg
		}
		return placeText, seg
	case placeDialog, placeTurn, placeSide:
		seg := top.key
		if len(f.sizes[f.row]) > 0 {
			f.forget(joinPath(f.path(), seg)) // a key given twice: the decoder keeps the last value
		}
		return f.member(top.place, seg), seg
	}
	return placeOther, ""
}

// member is the place of the value of key in an object at place parent.
func (f *jsonFilter) member(parent place, key string) place {
	switch {
	case parent == placeDialog && key == "dialog_id":
		return placeText
	case parent == placeDialog && key == "turns":
		return placeTurns
	case parent == placeDialog && key == "tools":
		return placeTools
	case parent == placeTurn && key == "tags":
		return placeTags
	case parent == placeTurn && f.names.sides[key]:
		return placeSide
	case parent == placeTurn && f.names.turn[key], parent == placeSide && key != "args" && f.names.side[key]:
		return placeText
	case parent == placeSide && key == "args":
		return placeArgs
	}
	return placeOther
}

// containerPlace is the place of an object or array (open) at place pl.
func containerPlace(pl place, open byte) place {
	switch pl {
	case placeDialog, placeTurn, placeSide:
		if open == '{' {
			return pl
		}
	case placeTurns, placeTags:
		if open == '[' {
			return pl
		}
	case placeTop, placeArgs, placeTools, placeInText, placeAny:
		return pl
	}
	return placeOther
}

// beginString starts the string whose opening quote is at b[i].
func (f *jsonFilter) beginString(i int) {
	s := &f.str
	*s = stringScan{active: true, start: f.off + int64(i), from: -1, hold: s.hold[:0], esc: s.esc[:0]}
	if top := f.top(); top != nil && top.open == '{' && top.wantKey {
		top.wantKey = false
		if top.place == placeDialog || top.place == placeTurn || top.place == placeSide {
			s.how = strKey
		}
		return
	}
	s.place, s.seg = f.begin()
	switch s.place {
	case placeText, placeArgs:
		s.how = strDecoded
	case placeTools, placeInText, placeAny:
		s.how = strRaw
	default:
		return
	}
	s.from = i
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString consumes the current string's bytes from b[i]: up to its
// closing quote, the end of b, or a byte the decoder refuses. It returns
// where it stopped and the new mark (see feed).
func (f *jsonFilter) scanString(b []byte, i, mark int) (int, int) {
	s := &f.str
	held := s.how == strDecoded || s.how == strRaw
	for i < len(b) {
		c := b[i]
		switch {
		case len(s.esc) > 0:
			if !s.escape(c) {
				return i, f.fail(b, i, mark)
			}
			f.keep(b[i : i+1])
			i++
		case c == '"':
			return i + 1, f.endString(b, i, mark)
		case c == '\\':
			s.flushUTF()
			s.esc = append(s.esc, c)
			f.keep(b[i : i+1])
			i++
		case c < 0x20:
			return i, f.fail(b, i, mark)
		default:
			j, all := i, c
			for j < len(b) && plain[b[j]] {
				all |= b[j]
				j++
			}
			if s.how == strDecoded {
				s.count(b[i:j], all < utf8.RuneSelf)
			}
			f.keep(b[i:j])
			i = j
		}
		if held && !s.leftOut && s.n > f.limit {
			mark = f.leaveOut(b, mark)
		}
	}
	return i, mark
}

// leaveOut drops the current string's content, now known to be over the
// limit: what passed before it goes on, the string does not. It returns
// the new mark.
func (f *jsonFilter) leaveOut(b []byte, mark int) int {
	s := &f.str
	s.leftOut = true
	if s.from >= 0 {
		f.out = append(f.out, b[mark:s.from]...)
		s.from = -1
	}
	s.hold = s.hold[:0]
	if cap(s.hold) > 1<<20 {
		s.hold = nil
	}
	return -1
}

// keep takes raw bytes of the current string: counted (strRaw), set apart
// while it may fit and runs past its chunk, or kept as a key's text.
func (f *jsonFilter) keep(raw []byte) {
	s := &f.str
	switch s.how {
	case strPass:
	case strKey:
		if len(s.hold)+len(raw) > maxKeyBytes {
			s.long = true
		} else {
			s.hold = append(s.hold, raw...)
		}
	default:
		if s.how == strRaw {
			s.n += len(raw)
		}
		if !s.leftOut && s.from < 0 {
			s.hold = append(s.hold, raw...)
		}
	}
}

// endString ends the current string at its closing quote b[i] and
// returns the new mark.
func (f *jsonFilter) endString(b []byte, i, mark int) int {
	s := &f.str
	s.active = false
	switch s.how {
	case strKey:
		if top := f.top(); top != nil {
			top.key = keyText(s.hold, s.long)
		}
		return mark
	case strPass:
		return mark
	case strDecoded:
		s.flushUTF()
		if s.high {
			s.n += 3
		}
	}
	if !s.leftOut && s.n > f.limit {
		mark = f.leaveOut(b, mark)
	}
	switch {
	case !s.leftOut && s.from >= 0: // it fits, and passes with the bytes around it
		return mark
	case !s.leftOut:
		f.out = append(append(f.out, s.hold...), '"')
		return i + 1
	}
	f.out = append(f.out, `"\u0000left out at byte `...)
	f.out = strconv.AppendInt(f.out, s.start, 10)
	f.out = append(f.out, '"')
	switch s.place {
	case placeText, placeArgs:
		f.record(joinPath(f.path(), s.seg), s.n)
	case placeTools: // tools given as a string: its text as written, quotes included
		f.record(joinPath(f.path(), s.seg), s.n+2)
	case placeInText:
		for k := len(f.stack) - 1; k >= 0; k-- {
			if p := f.stack[k].place; p == placeArgs || p == placeTools {
				f.stack[k].shortened = true
				break
			}
		}
	}
	return i + 1
}

// fail stops filtering where the current string holds a byte the decoder
// refuses (b[i], or the end of the input: b nil): a string set apart is
// passed on as far as it was read (a string left out as its quote and the
// escape begun), so the decoder stops where and as it would without the
// filter; the input passes unchanged from b[i] on. It returns the new
// mark.
func (f *jsonFilter) fail(b []byte, i, mark int) int {
	s := &f.str
	held := s.how == strDecoded || s.how == strRaw
	s.active = false
	f.done = true
	switch {
	case !held || (!s.leftOut && s.from >= 0):
		return mark
	case s.leftOut:
		f.out = append(append(f.out, '"'), s.esc...)
	default:
		f.out = append(f.out, s.hold...)
	}
	return i
}

// keyText is a key as the decoder reads it; a long key is none the filter
// looks for.
func keyText(raw []byte, long bool) string {
	if long {
		return "\x00long"
	}
	if !strings.ContainsRune(string(raw), '\\') && utf8.Valid(raw) {
		return string(raw)
	}
	var k string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k) != nil {
		return "\x00bad"
	}
	return k
}

// path is the path in the row of the innermost frame:
// "turns[1].predict_turn.args".
func (f *jsonFilter) path() string {
	p := ""
	for _, fr := range f.stack[min(f.rowDepth+1, len(f.stack)):] {
		p = joinPath(p, fr.seg)
	}
	return p
}

// joinPath is the path of the value seg (a key, or an index "[2]") of the
// value at path p.
func joinPath(p, seg string) string {
	if p == "" || strings.HasPrefix(seg, "[") {
		return p + seg
	}
	return p + "." + seg
}

// record keeps the length n of the value at path of the current row.
func (f *jsonFilter) record(path string, n int) {
	m := f.sizes[f.row]
	if m == nil {
		m = map[string]int{}
		f.sizes[f.row] = m
	}
	m[path] = n
}

// forget drops what was recorded at or under path in the current row.
func (f *jsonFilter) forget(path string) {
	m := f.sizes[f.row]
	for p := range m {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			delete(m, p)
		}
	}
}

// escape takes byte c of an escape begun; false if the decoder refuses it.
func (s *stringScan) escape(c byte) bool {
	if len(s.esc) == 1 {
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.esc = s.esc[:0]
			if s.how == strDecoded {
				s.rune(-1)
			}
			return true
		case 'u':
			s.esc = append(s.esc, c)
			return true
		}
		return false
	}
	if !isHex(c) {
		return false
	}
	s.esc = append(s.esc, c)
	if len(s.esc) == 6 {
		r, _ := strconv.ParseUint(string(s.esc[2:]), 16, 32)
		s.esc = s.esc[:0]
		if s.how == strDecoded {
			s.rune(rune(r))
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// rune counts an escape: a \u escape's code unit r, or -1 for a one-byte
// escape (\n, \", ...). As encoding/json decodes: a high surrogate and
// the low one after it are one 4-byte rune; a surrogate without its pair
// is U+FFFD.
func (s *stringScan) rune(r rune) {
	if s.high {
		s.high = false
		if 0xDC00 <= r && r <= 0xDFFF {
			s.n += 4
			return
		}
		s.n += 3
	}
	switch {
	case r < 0:
		s.n++
	case 0xD800 <= r && r <= 0xDBFF:
		s.high = true
	case utf16.IsSurrogate(r):
		s.n += 3
	default:
		s.n += utf8.RuneLen(r)
	}
}

// count counts the decoded bytes of raw string content without escapes
// (ascii: all of it is ASCII): as encoding/json decodes, each byte of
// invalid UTF-8 becomes U+FFFD (3 bytes).
func (s *stringScan) count(run []byte, ascii bool) {
	if s.high {
		s.high = false
		s.n += 3
	}
	if ascii {
		s.flushUTF()
		s.n += len(run)
		return
	}
	for k := 0; k < len(run); {
		if c := run[k]; c < utf8.RuneSelf {
			s.flushUTF()
			j := k + 1
			for j < len(run) && run[j] < utf8.RuneSelf {
				j++
			}
			s.n += j - k
			k = j
			continue
		}
		s.utf[s.nutf] = run[k]
		s.nutf++
		k++
		for s.nutf > 0 && utf8.FullRune(s.utf[:s.nutf]) {
			s.decodeUTF()
		}
	}
}

// flushUTF counts the bytes of a UTF-8 sequence cut short (by an ASCII
// byte, an escape or the string's end): each is U+FFFD.
func (s *stringScan) flushUTF() {
	for s.nutf > 0 {
		s.decodeUTF()
	}
}

// decodeUTF counts the first rune of s.utf and drops its bytes.
func (s *stringScan) decodeUTF() {
	r, size := utf8.DecodeRune(s.utf[:s.nutf])
	if r == utf8.RuneError && size == 1 {
		s.n += 3
	} else {
		s.n += size
	}
	s.nutf = copy(s.utf[:], s.utf[size:s.nutf])
}
