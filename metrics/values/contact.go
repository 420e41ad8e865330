package values

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/nyaruka/phonenumbers"
)

var emailText = regexp.MustCompile(`^(?i)(mailto:)?[a-z0-9._%+'-]+@[a-z0-9.-]+\.[a-z]{2,}$`)

func isEmail(s string) bool { return emailText.MatchString(s) }

// normalizeEmail lower-cases an address and drops "mailto:": mail systems
// treat addresses case-insensitively.
func normalizeEmail(s string) string {
	t := strings.ToLower(strings.TrimSpace(s))
	return strings.TrimPrefix(t, "mailto:")
}

func isURL(s string) bool {
	t := strings.ToLower(s)
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	return strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "www.") ||
		strings.HasPrefix(t, "ftp://")
}

// normalizeURL lower-cases the scheme and host, reads a URL without a
// scheme as https, treats http and https alike, drops the default port, a
// trailing slash and an empty query or fragment; the path, query and
// fragment keep their case.
func normalizeURL(s string) string {
	t := strings.TrimSpace(s)
	if !strings.Contains(t, "://") {
		t = "https://" + t
	}
	u, err := url.Parse(t)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(s))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "http" {
		scheme = "https"
	}
	host := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		host += ":" + p
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	out := scheme + "://" + host + path
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.Fragment
	}
	return out
}

var phoneText = regexp.MustCompile(`^\+?[\d\s().-]{7,24}$`)

// looksLikePhone reports 7 to 15 digits written the way phone numbers
// are: with a leading +, parentheses, or digits grouped by separators
// ("(415) 555-0100", "+44 20 7946 0958", "555-0100").
func looksLikePhone(s string) bool {
	if !phoneText.MatchString(s) {
		return false
	}
	d := digitsOf(s)
	if len(d) < 7 || len(d) > 15 {
		return false
	}
	return strings.HasPrefix(s, "+") || strings.ContainsAny(s, "()") || strings.ContainsAny(strings.TrimSpace(s), " -.")
}

func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// comparePhones decides two phone numbers with libphonenumber's Go port
// (nyaruka/phonenumbers): a number written with its country code ("+1
// 415 555 0100") gives the region in which the other side, when written
// nationally ("(415) 555-0100"), is read; both then compare as E.164.
// Two national numbers compare by their digits.
func comparePhones(gold, pred string) Ruling {
	g, gi := parsePhone(gold, "")
	p, pi := parsePhone(pred, "")
	switch {
	case gi && !pi:
		p, pi = parsePhone(pred, phonenumbers.GetRegionCodeForNumber(g))
	case pi && !gi:
		g, gi = parsePhone(gold, phonenumbers.GetRegionCodeForNumber(p))
	}
	if gi && pi {
		return parsed(phonenumbers.Format(g, phonenumbers.E164) == phonenumbers.Format(p, phonenumbers.E164), gold, pred)
	}
	gd, pd := digitsOf(gold), digitsOf(pred)
	switch {
	case len(gd) < 3:
		return compareWords(gold, pred)
	case len(pd) < 3:
		return unparsed(Phone, pred)
	}
	return parsed(gd == pd, gold, pred)
}

// parsePhone parses s in region ("" for a number that must carry its
// country code); ok is false when it does not parse or is no possible
// number.
func parsePhone(s, region string) (*phonenumbers.PhoneNumber, bool) {
	if region == "" && !strings.HasPrefix(strings.TrimSpace(s), "+") {
		return nil, false
	}
	if region == "" {
		region = "ZZ"
	}
	n, err := phonenumbers.Parse(s, region)
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return nil, false
	}
	return n, true
}

// normalizeIdentifier is normalizeCode, and a version number's "v"
// dropped ("v2.4.1" is "2.4.1").
func normalizeIdentifier(s string) string {
	c := normalizeCode(s)
	if versionText.MatchString(c) {
		return strings.TrimPrefix(c, "v")
	}
	return c
}

// versionText is a dotted version number, "v" or not: 2.4, v2.4.1.
var versionText = regexp.MustCompile(`^v?\d+(\.\d+)+$`)

// normalizeCode is an identifier's normal form: case-folded, without
// white space, hyphens and underscores ("ORD-10293" = "ord 10293" =
// "ORD10293"); dots, slashes and colons stay ("1.2.3" is not "12.3").
func normalizeCode(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '_' || r == '‐' || r == '–' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}
