#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace podwait {

// `podwait-exporter explain`: offline classification of a dump (kubectl get pods -A -o json),
// optionally with events, TidbClusters, the cluster-autoscaler status ConfigMap and PD answers,
// through the same classifier as the daemon. Prints a kubectl-like table or JSON.
// Returns the process exit code: 0 ok, 1 bad input (the message names the file and the problem),
// 2 bad usage. `in` is read when a file argument is "-".
int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err);

std::string ExplainUsage();

}  // namespace podwait
