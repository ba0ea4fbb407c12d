"""Library layers called through the solution's own attributes: `self.fc(x)` where `self.fc` was
built from nn.Linear, nn.Conv*, nn.MultiheadAttention, nn.LSTM, … (LIBRARY_MODULES), or from a
container holding one (nn.Sequential, nn.ModuleList, nn.ModuleDict, a list or dict of them). A call
counts through a subscript (`self.blocks[0](x)`), through forward or __call__ (`self.fc.forward(x)`),
through a loop over the container (`for block in self.blocks: x = block(x)`) and through a local
name bound to one (`fc = self.fc; fc(x)`).

The facts' visitor reports assignments and calls as it walks; the calls become `library` facts at
the end of the module, once every holder is known (a forward may come before its __init__)."""
import ast

CALL_METHODS = ("forward", "__call__")


def _built_layer(value, name_of, layer_names):
    """The library layer an assigned expression constructs anywhere inside it, or None."""
    for sub in ast.walk(value):
        if isinstance(sub, ast.Call):
            last = (name_of(sub.func) or "").rsplit(".", 1)[-1]
            if last in layer_names:
                return last
    return None


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


def _constant_text(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _self_attribute(node):
    """X for `self.X`, `self.X[...]`, `self.X.forward`, `self.X[...].__call__`, and for the same
    reached by name: `getattr(self, "X")`, `self._modules["X"]`; None otherwise."""
    if isinstance(node, ast.Attribute) and node.attr in CALL_METHODS:
        node = node.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and _is_self(node.value.value) \
            and node.value.attr == "_modules":
        return _constant_text(node.slice)
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and _is_self(node.args[0]):
        return _constant_text(node.args[1])
    if isinstance(node, ast.Attribute) and _is_self(node.value):
        return node.attr
    return None


def class_call(name, layer_names):
    """The layer whose class method a resolved call name is (`torch.nn.Linear.forward(self.fc, x)`,
    `nn.Conv2d.__call__(layer, x)`): a library call whatever instance it is given; else None."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[0] == "torch" and parts[-1] in CALL_METHODS and parts[-2] in layer_names:
        return parts[-2]
    return None


class LayerCalls:
    """What one module's walk saw: the attributes holding a layer, the names bound to attributes and
    the calls made through either."""

    def __init__(self, layer_names):
        self.layer_names = layer_names
        self.holders = {}  # attribute -> the layer it holds
        self.bound = {}    # local name -> attribute (a loop variable or an alias)
        self.calls = []    # (attribute or (name,), source text, node, function)

    def assigned(self, target, value, name_of):
        """target = value: a self attribute built from a layer, or a local name bound to an attribute."""
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            layer = _built_layer(value, name_of, self.layer_names)
            if layer:
                self.holders[target.attr] = layer
        elif isinstance(target, ast.Name) and _self_attribute(value):
            self.bound[target.id] = _self_attribute(value)

    def registered(self, node, name_of):
        """self.add_module("X", layer), self.register_module("X", layer), setattr(self, "X", layer)."""
        name = name_of(node.func) or ""
        args = node.args
        if name in ("self.add_module", "self.register_module") and len(args) == 2:
            key, value = args
        elif name in ("setattr", "builtins.setattr") and len(args) == 3 and isinstance(args[0], ast.Name) \
                and args[0].id == "self":
            key, value = args[1], args[2]
        else:
            return
        layer = _built_layer(value, name_of, self.layer_names)
        if layer and isinstance(key, ast.Constant) and isinstance(key.value, str):
            self.holders[key.value] = layer

    def looped(self, target, iterable):
        """for target in iterable: the loop variable stands for the container's layers."""
        holder = _self_attribute(iterable)
        if holder is None and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
                and iterable.func.id == "enumerate" and iterable.args:
            holder = _self_attribute(iterable.args[0])
            target = target.elts[-1] if isinstance(target, ast.Tuple) and target.elts else target
        if holder is None and isinstance(iterable, ast.Name):
            holder = self.bound.get(iterable.id)
        if holder and isinstance(target, ast.Name):
            self.bound[target.id] = holder

    def called(self, node, function):
        """A call: through a self attribute, or through a name that may be bound to one (resolved at
        the end: a comprehension's variable is bound after its element is read)."""
        func = node.func
        holder = _self_attribute(func)
        if holder is None:
            base = func.value if isinstance(func, ast.Attribute) and func.attr in CALL_METHODS else func
            while isinstance(base, ast.Subscript):
                base = base.value
            if not isinstance(base, ast.Name):
                return
            holder = (base.id,)
        self.calls.append((holder, ast.unparse(func), node, function))

    def facts(self):
        """(what, node, function) of each call through an attribute that holds a library layer."""
        found = []
        for holder, text, node, function in self.calls:
            attribute = self.bound.get(holder[0]) if isinstance(holder, tuple) else holder
            if attribute in self.holders:
                found.append((f"{text}(...) (self.{attribute} holds an nn.{self.holders[attribute]})", node, function))
        return found
