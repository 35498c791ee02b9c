"""What a name the program calls can be, before it is called: a NumPy
function, an array's bound method, a user function (inlined), a local
function or lambda.
"""




class BoundMethod:
    """`A.sum`, `A.copy`... before it is called."""

    def __init__(self, obj, name):
        self.obj = obj
        self.name = name


class NumpyFunction:
    def __init__(self, name):
        self.name = name


class UserFunction:
    """A Python function of the program's modules, called: inlined."""

    def __init__(self, fn):
        self.fn = fn


class LocalFunction:
    """A function defined in the program (`def rhs(z): ...`), called:
    inlined, reading free variables from its defining scope."""

    def __init__(self, node, defaults, scope):
        self.node, self.defaults, self.scope = node, defaults, scope


class LocalLambda:
    """A lambda of the program (`f = lambda z: -k * z ** 3`): its body is
    evaluated at each call, in the scope it was defined in as that scope
    is then (Python's late binding), with the parameters bound."""

    def __init__(self, node, defaults, scope):
        self.node, self.defaults, self.scope = node, defaults, scope
