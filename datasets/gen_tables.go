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
	// Drawn uniformly, only inside reply text.
	"tier":    {"free", "starter", "team", "business", "enterprise"},
	"weather": {"sunny", "cloudy", "rainy", "windy", "partly cloudy", "foggy", "snowy", "clear"},
	"month": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
		"November", "December"},
	"airline": {"UA", "DL", "BA", "AF", "LH", "NH", "AA", "KL", "IB", "QF"},
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

// fact is one statement a reply makes, in two wordings; {KEY} stands for a
// value of the reply (V is the topic, see dialogGen.factValues for the rest).
type fact struct{ a, b string }

// replyKinds are the facts a reply can state, by the topic pool of the chain
// before it ("" for a reply that follows no chain). A reply states two or
// three consecutive facts of its kind.
var replyKinds = map[string][]fact{
	"metric": {
		{"{V} for {Q} in {R} came to {AMT}, {PCT}% {DIR} on the previous quarter.",
			"In {R}, {Q} {V} was {AMT} ({DIR} {PCT}% quarter on quarter)."},
		{"The chart shows {V} by month; the peak was {MONTH} at {AMT2}.",
			"{MONTH} was the strongest month for {V}, at {AMT2}."},
		{"I added it to the {V} report under key findings.",
			"The key findings section of the {V} report now has these numbers."},
		{"I sent the report to {P}, who can review it before {D}.",
			"{P} has the report and can go through it ahead of {D}."},
	},
	"city": {
		{"The forecast for {V} on {D} is {TEMP} degrees and {COND}.",
			"On {D} expect {COND} weather in {V}, around {TEMP} degrees."},
		{"I found {N} flights to {V}; the cheapest is {FLT} at {TIME} for ${PRICE}.",
			"The best fare to {V} is ${PRICE} on {FLT}, leaving at {TIME} ({N} options in total)."},
		{"Your hotel in {V} is booked for {NIGHTS} nights, confirmation {REF}.",
			"I reserved {NIGHTS} nights at a hotel in {V} (confirmation number {REF})."},
		{"The trip is on your calendar for {D}.",
			"I put the trip in your calendar on {D}."},
	},
	"person": {
		{"{V} is on the {TIER} plan and has {N} open tickets; the oldest is #{TICKET}.",
			"There are {N} open tickets for {V} ({TIER} plan), the oldest being #{TICKET}."},
		{"Their renewal date is {D2} and the account is worth ${PRICE} a year.",
			"The account renews on {D2}, at ${PRICE} per year."},
		{"I emailed {V} about it.",
			"{V} got an email from me about this."},
		{"I set up a call with {V} on {D} at {TIME}.",
			"Your call with {V} is scheduled for {TIME} on {D}."},
	},
	"": {
		{"I noted your request about {V} as {REF}.",
			"Your request about {V} is logged under {REF}."},
		{"I will follow up by {D} at {TIME}.",
			"Expect an update from me on {D} by {TIME}."},
		{"{P} from the {R} team is looking into it.",
			"The {R} team ({P}) has picked this up."},
	},
}

// openers and closers frame a reply ("" is common: no framing).
var (
	openers = []string{"", "", "Sure. ", "Done. ", "Here is what I found. ", "All set. ", "Okay. ", "Good news: "}
	closers = []string{"", "", " Anything else?", " Let me know if you need more.", " Happy to change anything.", " Want me to do anything else?"}
)

var userAsks = []string{
	"Can you prepare the quarterly report and send it to the team?",
	"Plan a trip for me next month.",
	"Check on our biggest customer and set up a call.",
	"What's the weather going to be like, and book me a flight?",
	"Pull the numbers and chart them, please.",
}
