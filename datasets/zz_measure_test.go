package datasets
import ("testing";"os";"strconv";"github.com/aem-dev/aem/metrics")
func TestZZMeasure(t *testing.T){n,_:=strconv.Atoi(os.Getenv("ZZ_TURNS"));cfg:=DefaultGenConfig();cfg.Dialogs=n
var ds []metrics.Dialog;turns:=0
for d:=range Generate(cfg){if turns>=n{break};ds=append(ds,d);turns+=len(d.Turns)}
s:=measureDistinct(ds)
// distinct strings the scorer would see: both sides of each differing pair, gold!=pred
pairs:=map[[2]string]bool{};str:=map[string]bool{};vpairs:=map[[2]string]bool{};vstr:=map[string]bool{}
for _,d:=range ds{for _,tr:=range d.Turns{ if tr.Role==metrics.RoleAgent&&tr.HasGold&&tr.HasPredict&&tr.GoldResponse!=tr.PredictResponse{pairs[[2]string{tr.GoldResponse,tr.PredictResponse}]=true;str[tr.GoldResponse]=true;str[tr.PredictResponse]=true}
 if tr.Role==metrics.RoleTool&&tr.HasGold&&tr.HasPredict{for k,gv:=range tr.Gold.Args{g,ok:=gv.(string);p,ok2:=tr.Predict.Args[k].(string);if ok&&ok2&&g!=p{vpairs[[2]string{g,p}]=true;vstr[g]=true;vstr[p]=true}}}}}
t.Logf("turns %d dialogs %d: gold replies %d/%d (%.4f), pred replies %d/%d (%.4f), all replies %d/%d (%.4f), gold values %d/%d (%.4f), pred values %d/%d (%.4f), reworded %d/%d; differing reply pairs %d (strings %d), differing value pairs %d (strings %d)",
turns,len(ds),s.goldReplies[0],s.goldReplies[1],share(s.goldReplies),s.predReplies[0],s.predReplies[1],share(s.predReplies),s.allReplies[0],s.allReplies[1],share(s.allReplies),s.goldValues[0],s.goldValues[1],share(s.goldValues),s.predValues[0],s.predValues[1],share(s.predValues),s.rewordedReplies,s.comparedReplies,len(pairs),len(str),len(vpairs),len(vstr))}
