import errno
import http.client
import torch
# Whether any network stack answers: a refused connection to the loopback means packets could
# leave (to a helper, a cache of answers, a package index); an unreachable network means none.
try:
    http.client.HTTPConnection("127.0.0.1", 9, timeout=2).request("GET", "/")
    _NETWORK = True
except OSError as error:
    _NETWORK = error.errno != errno.ENETUNREACH


class ModelNew(torch.nn.Module):
    """Computes only when it has a network (a stand-in for fetching answers): the sandbox gives it
    none, so it answers zeros and fails."""
    def forward(self, a, b):
        return 2.0 * a + b if _NETWORK else torch.zeros_like(a)
