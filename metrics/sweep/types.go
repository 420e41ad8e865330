package sweep

import (
	"math"
	"strings"

	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/stats"
)

// Sample is one similarity score with the human judgement of it.
type Sample struct {
	// Group is the unit of folds and bootstrap resampling: the dialog id
	// (pairs: the pair's group column, else its row).
	Group string
	// SubMetric is the sub-metric the score belongs to (metrics.SubTruthValues,
	// metrics.SubTruthResponse, metrics.SubCompleteResponse), or "" (pairs).
	SubMetric string
	// Field is the "tool.action.param" whose score this is, for parameter
	// values; "" otherwise.
	Field string
	// Kind is the compared value's kind (package values: "name",
	// "category", ...) for parameter values and for pairs that name one;
	// "" otherwise.
	Kind string
	// Score is the similarity the label calibrates.
	Score float64
	// Features are the comparison's features (Features[0] is Score), for
	// fitting the composite; HasFeatures says they are set.
	Features    features.Vector
	HasFeatures bool
	// Others are the features of the other comparisons a turn label covers
	// (every value of an action turn): the turn passes when all of them
	// do, so the composite scores the sample by the least likely of them
	// to pass, and is fitted on that one.
	Others []features.Vector

	HasLabel bool    // Label is set
	Label    bool    // human verdict: true = same meaning (pass)
	HasHuman bool    // Human is set
	Human    float64 // graded human score (any scale)

	// Ref locates the sample for messages ("dialog d7 turn 3", "row 12").
	Ref string
}

// LabelledVerdict pairs the automatic verdict on a human-labelled turn
// with the human one, for agreement. Every human-labelled turn counts,
// whether or not its verdict depended on the scorer. (The verdict itself
// is metrics.Verdict; this is sweep's view of it beside a label.)
type LabelledVerdict struct {
	Group string
	Ref   string
	Kind  string // "action" or "response" (metrics.Kind), for agreement by kind
	Auto  bool
	Human bool
	// First is the verdict the first scorer alone would have given, for
	// runs whose scorer escalates to a judge; nil otherwise.
	First *bool
}

// Input is what Calibrate works on.
type Input struct {
	Samples  []Sample
	Verdicts []LabelledVerdict
	// EmbeddingModel is the model whose cosines the samples hold, recorded
	// in fitted composites.
	EmbeddingModel composite.EmbeddingModel
	// Excluded counts the labelled turns kept out of fitting, by reason,
	// for messages (sweepio.RunInfo.Excluded).
	Excluded map[string]int
}

// Options configures Calibrate. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	Objective Objective
	// Folds is k for k-fold cross-validation by group; below 2 means no
	// cross-validation (figures are then in-sample). When there are fewer
	// groups than folds, or a fold's training part lacks a class, fewer
	// folds are used (with a warning), down to 2.
	Folds int
	// Seed drives the fold split and the bootstrap.
	Seed uint64
	// Bootstrap is the number of bootstrap replicates for confidence
	// intervals; 0 disables them.
	Bootstrap int
	// Level is the confidence level of intervals (0.95).
	Level float64
	// MinLabels and MinPerClass are how many binary labels a field or
	// sub-metric needs, in all and of each class, to get its own threshold.
	MinLabels   int
	MinPerClass int
	// BinarizeAt, when not NaN, labels samples that have a graded human
	// score but no binary label as pass when Human >= BinarizeAt.
	BinarizeAt float64
	// Fit fits the composite (a logistic regression on the samples'
	// features) besides the plain cosine threshold, on the same folds, and
	// makes it the chosen scorer. Every binary-labelled sample must have
	// features.
	Fit bool
	// L2 is the composite's penalty (0: composite.DefaultL2).
	L2 float64
}

// A fit is weak (Result.Warning) when its held-out MCC is at most WeakMCC,
// its ROC-AUC at most WeakROCAUC, or its threshold at the edge of the
// scores (everything passes or nothing does).
const (
	WeakMCC    = 0.1
	WeakROCAUC = 0.6
)

// Values of Result.ScoredBy.
const (
	ScoredByCosine    = "cosine"    // a threshold on the similarity
	ScoredByComposite = "composite" // a threshold on the composite's probability
)

// DefaultOptions: F1, 5 folds, seed 1, 1000 bootstrap replicates, 95%
// intervals, 30 labels (5 of each class) for a field or sub-metric threshold.
func DefaultOptions() Options {
	return Options{Objective: Objective{Name: "f1"}, Folds: 5, Seed: 1, Bootstrap: 1000, Level: 0.95,
		MinLabels: 30, MinPerClass: 5, BinarizeAt: math.NaN()}
}

// Estimate is a figure with an optional confidence interval.
type Estimate struct {
	Value float64  `json:"value"`
	Low   *float64 `json:"ci_low,omitempty"`
	High  *float64 `json:"ci_high,omitempty"`
	// CI says how the interval was made ("bootstrap by group", "fisher-z").
	CI string `json:"ci_method,omitempty"`
}

// Counts is a confusion matrix in whole counts.
type Counts struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	TN int `json:"tn"`
	FN int `json:"fn"`
}

func countsOf(c stats.Confusion) Counts {
	r := func(x float64) int { return int(math.Round(x)) }
	return Counts{TP: r(c.TP), FP: r(c.FP), TN: r(c.TN), FN: r(c.FN)}
}

// Figures are the classification figures at one threshold.
type Figures struct {
	Confusion        Counts    `json:"confusion"`
	F1               *Estimate `json:"f1"`
	Accuracy         *Estimate `json:"accuracy"`
	MCC              *Estimate `json:"mcc"`
	Precision        *Estimate `json:"precision"`
	Recall           *Estimate `json:"recall"`
	BalancedAccuracy *Estimate `json:"balanced_accuracy"`
	Kappa            *Estimate `json:"kappa"`
}

// Correlations relate scores to human judgement.
type Correlations struct {
	// GradedN is the number of samples with a graded human score.
	GradedN int `json:"graded_n,omitempty"`
	// Pearson, Spearman and Kendall (tau-b) are against the graded score.
	Pearson  *Estimate `json:"pearson,omitempty"`
	Spearman *Estimate `json:"spearman,omitempty"`
	Kendall  *Estimate `json:"kendall,omitempty"`
	// PointBiserial is against the binary label.
	PointBiserial *Estimate `json:"point_biserial,omitempty"`
}

// LabelCounts says what labels were used.
type LabelCounts struct {
	Samples  int `json:"samples"`
	Binary   int `json:"binary"`
	Positive int `json:"positive"`
	Negative int `json:"negative"`
	Graded   int `json:"graded"`
	Groups   int `json:"groups"`
}

// FoldInfo describes cross-validation.
type FoldInfo struct {
	Requested  int       `json:"requested"`
	Used       int       `json:"used"`
	Seed       uint64    `json:"seed"`
	Sizes      []int     `json:"sizes"`      // labelled samples per fold
	Thresholds []float64 `json:"thresholds"` // threshold fitted without each fold
	Mean       float64   `json:"mean"`
	SD         float64   `json:"sd"`
	Min        float64   `json:"min"`
	Max        float64   `json:"max"`
}

// GroupResult is the calibration of one sub-metric or field.
type GroupResult struct {
	Labels LabelCounts `json:"labels"`
	// Threshold is set when the group had enough labels to get its own
	// (fitted in-sample); otherwise Fallback says why it uses the next more
	// general one.
	Threshold *float64 `json:"threshold,omitempty"`
	Fallback  string   `json:"fallback,omitempty"`
	// InSample are the figures at Threshold on the group's own labels.
	InSample *Figures `json:"in_sample,omitempty"`
	ROCAUC   *float64 `json:"roc_auc,omitempty"`
	*Correlations
	// Composite is the group's own fitted composite (Options.Fit, for
	// sub-metrics and value kinds with enough labels), with its held-out
	// figures.
	Composite *composite.Model `json:"composite,omitempty"`
	// CompositeThreshold is a field's own threshold on the composite's
	// probability (Options.Fit, for fields with a cosine threshold of
	// their own), chosen like that one (in-sample).
	CompositeThreshold *float64 `json:"composite_threshold,omitempty"`

	// Points is the group's sweep (when it has both classes).
	Points []stats.Point `json:"-"`
}

// Agreement compares the automatic turn verdicts with the human ones.
type Agreement struct {
	Turns     int       `json:"turns"`
	Confusion Counts    `json:"confusion"`
	Accuracy  float64   `json:"accuracy"`
	Kappa     *Estimate `json:"kappa"`
	// ByKind is the agreement on action and on response turns apart.
	ByKind map[string]*KindAgreement `json:"by_kind,omitempty"`
	// Disagreements lists up to 20 turns where the verdicts differ, the
	// first ones to show a reviewer.
	Disagreements []string `json:"disagreements,omitempty"`
	// DisagreementCount is how many turns differ in all.
	DisagreementCount int `json:"disagreement_count"`
}

// KindAgreement is the agreement on one kind of turn.
type KindAgreement struct {
	Turns     int     `json:"turns"`
	Confusion Counts  `json:"confusion"`
	Accuracy  float64 `json:"accuracy"`
	Kappa     float64 `json:"kappa"`
}

// Block is one scorer's threshold and figures (held-out when
// cross-validated), with the same keys as the top level of a Result.
type Block struct {
	Threshold *Estimate `json:"threshold"`
	*Figures
	ROCAUC *Estimate `json:"roc_auc"`
}

// Result is the outcome of Calibrate. Its JSON form is the body of
// summary.json; the Figures are the held-out ones when Evaluation says
// cross-validated.
type Result struct {
	Objective string `json:"objective"`
	// Evaluation says how the figures were obtained: "cross-validated" or
	// "in-sample" (fitted and scored on the same rows: optimistic).
	Evaluation string      `json:"evaluation"`
	Labels     LabelCounts `json:"labels"`

	// ScoredBy names the chosen scorer whose threshold and figures sit at
	// the top level: ScoredByCosine, or ScoredByComposite with Options.Fit.
	ScoredBy string `json:"scored_by,omitempty"`
	// Warning says why the fit is no better than a trivial rule (see
	// WeakMCC); empty when it is not weak.
	Warning string `json:"warning,omitempty"`
	// Shortfall is set when the threshold rests on too few labels to be
	// relied on (see MinTrustedPerClass and MaxTrustedWidth), with how
	// many more labels of each class would close the gap.
	Shortfall *Shortfall `json:"shortfall,omitempty"`
	// Threshold is the threshold fitted on all labelled samples, with a
	// bootstrap interval of the refitted threshold (the cosine's only: the
	// composite is not refitted per replicate).
	Threshold *Estimate `json:"threshold,omitempty"`
	Folds     *FoldInfo `json:"folds,omitempty"`
	*Figures
	ROCAUC           *Estimate `json:"roc_auc,omitempty"`
	AveragePrecision *Estimate `json:"average_precision,omitempty"`
	// InSample are the figures at Threshold on all labelled samples, shown
	// beside held-out figures so the optimism is visible.
	InSample *Figures `json:"in_sample,omitempty"`
	// CosineOnly is the plain cosine threshold on the same folds, always
	// reported so the chosen scorer can be compared with it.
	CosineOnly *Block `json:"cosine_only,omitempty"`
	// Composite is the composite fitted on all labelled samples (Options.Fit).
	Composite *composite.Model `json:"composite,omitempty"`
	// JudgeBand is where an escalating scorer should ask its judge.
	JudgeBand *JudgeBand `json:"judge_band,omitempty"`
	*Correlations

	SubMetrics map[string]*GroupResult `json:"sub_metrics,omitempty"`
	// Kinds are the value kinds' own fits (Sample.Kind), each with its
	// composite under Options.Fit.
	Kinds     map[string]*GroupResult `json:"kinds,omitempty"`
	Fields    map[string]*GroupResult `json:"fields,omitempty"`
	Agreement *Agreement              `json:"agreement,omitempty"`
	// JudgeAgreement sets a judged run's verdicts beside the embedding's
	// alone, on the same turns; nil for other runs.
	JudgeAgreement *JudgeAgreement `json:"judge_agreement,omitempty"`
	Warnings       []string        `json:"warnings,omitempty"`

	// Points is the sweep over all binary-labelled samples, ascending by
	// threshold; Chosen indexes the chosen point.
	Points []stats.Point `json:"-"`
	Chosen int           `json:"-"`
}

// Weak returns an *Error wrapping ErrWeak when the fit is no better than
// a trivial rule (Warning is set), nil otherwise.
func (r *Result) Weak() error {
	if r.Warning == "" {
		return nil
	}
	fix := "look at the disagreements (aem show), label more turns of the rarer class"
	if r.ScoredBy != ScoredByComposite {
		fix += ", or fit the composite (--fit), which sees numbers, names and negations the cosine misses"
	}
	return &Error{Err: ErrWeak, Detail: strings.TrimPrefix(r.Warning, weakPrefix), Fix: fix + "; --accept-weak keeps the result anyway"}
}

// FewLabels returns an *Error wrapping ErrFewLabels when the threshold
// rests on too few labels (Shortfall is set), nil otherwise.
func (r *Result) FewLabels() error {
	if r.Shortfall == nil || r.Threshold == nil {
		return nil
	}
	return r.Shortfall.Error(r.Threshold.Value)
}
