package datasets

// Built-in tables for the generator: value pools (most common values
// first, drawn with a Zipf skew), paraphrases that keep the meaning, tool
// templates and reply templates.

var pools = map[string][]string{
	"city": {"New York City", "San Francisco", "London", "Paris", "Los Angeles", "Tokyo", "Berlin", "Chicago",
		"Washington, D.C.", "Boston", "Madrid", "Rome", "Sydney", "Toronto", "Amsterdam", "Seattle", "Austin",
		"Dublin", "Lisbon", "Singapore", "Mumbai", "Seoul", "Zurich", "Vienna", "Prague", "Oslo"},
	"metric": {"revenue", "profit", "units sold", "churn rate", "gross margin", "active users", "average order value",
		"conversion rate", "operating costs", "net promoter score"},
	"quarter": {"Q3 2024", "Q2 2024", "Q4 2024", "Q1 2024", "Q1 2025", "Q4 2023"},
	"region":  {"North America", "EMEA", "APAC", "LATAM", "global"},
	"date": {"2024-06-14", "2024-06-15", "2024-07-01", "2024-12-24", "2024-09-30", "2025-01-15", "2024-11-05",
		"2024-08-19", "2024-10-10", "2025-03-01"},
	"unit":    {"celsius", "fahrenheit"},
	"kind":    {"bar", "line", "pie", "scatter"},
	"person":  {"Alice Chen", "Bob Martin", "Carla Diaz", "Deepak Rao", "Emma Schulz", "Farid Haddad", "Grace Kim", "Hiro Tanaka"},
	"field":   {"email", "phone", "account tier", "renewal date", "open tickets"},
	"section": {"summary", "appendix", "key findings", "next steps"},
	"cabin":   {"economy", "premium economy", "business", "first"},
}

var paraphrases = map[string][]string{
	"New York City":    {"NYC", "New York", "NY City"},
	"San Francisco":    {"SF", "San Fran"},
	"Los Angeles":      {"LA", "L.A."},
	"Washington, D.C.": {"Washington DC", "DC"},
	"London":           {"London, UK"},
	"Paris":            {"Paris, France"},
	"Tokyo":            {"Tokyo, Japan"},
	"revenue":          {"sales revenue", "total revenue", "turnover"},
	"profit":           {"net profit", "earnings"},
	"units sold":       {"unit sales", "number of units sold"},
	"churn rate":       {"customer churn", "attrition rate"},
	"active users":     {"active customers", "MAU"},
	"Q3 2024":          {"third quarter of 2024", "2024 Q3"},
	"Q2 2024":          {"second quarter of 2024", "2024 Q2"},
	"Q4 2024":          {"fourth quarter of 2024", "2024 Q4"},
	"North America":    {"NA", "US and Canada"},
	"EMEA":             {"Europe, Middle East and Africa"},
	"celsius":          {"C", "metric"},
	"fahrenheit":       {"F", "imperial"},
	"economy":          {"coach"},
	"summary":          {"executive summary", "overview"},
	"email":            {"email address", "e-mail"},
	"phone":            {"phone number", "telephone"},
}

// param is one tool parameter: a topic parameter (the value the chain
// carries, inside format), a pool value, or an integer in [lo, hi].
type param struct {
	name   string
	topic  bool
	format string // for topic parameters: "{}" stands for the topic value
	pool   string // value pool, or "#int"
	lo, hi int
}

// step is one tool call of a template.
type step struct {
	tool, action, wrongAction string
	params                    []param
}

// template is a realistic chain: the first call draws the topic, later
// calls consume it.
type template struct {
	topicPool string
	steps     []step
}

var templates = []template{
	{topicPool: "metric", steps: []step{
		{"sales_db", "query", "aggregate", []param{{name: "metric", topic: true, format: "{}"}, {name: "period", pool: "quarter"}, {name: "region", pool: "region"}, {name: "limit", pool: "#int", lo: 5, hi: 50}}},
		{"charts", "plot", "render", []param{{name: "series", topic: true, format: "{}"}, {name: "kind", pool: "kind"}}},
		{"docs", "write_section", "append", []param{{name: "title", topic: true, format: "Quarterly {} report"}, {name: "section", pool: "section"}}},
		{"email", "send", "draft", []param{{name: "to", pool: "person"}, {name: "subject", topic: true, format: "Your {} report is ready"}}},
	}},
	{topicPool: "city", steps: []step{
		{"weather", "get_forecast", "get_history", []param{{name: "city", topic: true, format: "{}"}, {name: "date", pool: "date"}, {name: "unit", pool: "unit"}}},
		{"flights", "search", "book", []param{{name: "destination", topic: true, format: "{}"}, {name: "date", pool: "date"}, {name: "passengers", pool: "#int", lo: 1, hi: 4}, {name: "cabin", pool: "cabin"}}},
		{"hotels", "search", "book", []param{{name: "city", topic: true, format: "{}"}, {name: "nights", pool: "#int", lo: 1, hi: 7}}},
		{"calendar", "create_event", "update_event", []param{{name: "title", topic: true, format: "Trip to {}"}, {name: "date", pool: "date"}}},
	}},
	{topicPool: "person", steps: []step{
		{"crm", "lookup_customer", "update_customer", []param{{name: "name", topic: true, format: "{}"}, {name: "field", pool: "field"}}},
		{"tickets", "list_open", "close", []param{{name: "customer", topic: true, format: "{}"}, {name: "limit", pool: "#int", lo: 1, hi: 20}}},
		{"email", "send", "draft", []param{{name: "to", topic: true, format: "{}"}, {name: "subject", pool: "section"}}},
		{"calendar", "create_event", "update_event", []param{{name: "title", topic: true, format: "Call with {}"}, {name: "date", pool: "date"}}},
	}},
}

// reply templates: gold, a paraphrase, a wrong reply and an incomplete one.
type replyTpl struct{ gold, para, wrong, partial string }

var replies = []replyTpl{
	{"Here is the report on {}. It is attached and I shared it with the team.",
		"I've put together the {} report, attached it, and shared it with your team.",
		"I could not find any data about {}, so no report was created.",
		"Here is the report on {}."},
	{"I looked up {} for you. The details are in the summary below.",
		"Below is a summary of what I found about {}.",
		"I was unable to look up {} because the service is down.",
		"I looked up {}."},
	{"Done. Everything about {} is booked and confirmed.",
		"All set: the booking for {} is confirmed.",
		"I cancelled everything related to {}.",
		"Done."},
}

var userAsks = []string{
	"Can you prepare the quarterly report and send it to the team?",
	"Plan a trip for me next month.",
	"Check on our biggest customer and set up a call.",
	"What's the weather going to be like, and book me a flight?",
	"Pull the numbers and chart them, please.",
}
