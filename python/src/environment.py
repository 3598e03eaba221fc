# Environments and their policies, `vsvk.core` as a proxy to the current environment's core,
# per-environment storage (Local), on-destroy callbacks and futures. Run in the module's
# namespace when it is imported (lib.rs), after constants.py. The per-environment state itself
# (core, outputs) lives in Rust: environment.rs.
#
# A policy decides which environment is current; without one, the first use registers the
# standalone policy: one environment for the process.
import concurrent.futures as _futures
import contextvars as _contextvars
import ctypes as _ctypes
import logging as _logging
import threading as _threading
import weakref as _weakref

Future = _futures.Future
FutureCancelledError = _futures.CancelledError
wait_futures = _futures.wait

_policy_lock = _threading.RLock()
_policy = None
_policy_api = None
# per environment: what it was created by, its on-destroy callbacks, its Local values
_env_owner = _weakref.WeakKeyDictionary()
_env_on_destroy = _weakref.WeakKeyDictionary()
_env_locals = _weakref.WeakKeyDictionary()
_env_pending = _weakref.WeakKeyDictionary()


def _track_future(future):
    """Counts a get_frame_async future as pending in the current environment until it is done."""
    data = _current_data_or_none()
    if data is not None:
        pending = _env_pending.get(data)
        if pending is None:
            pending = _env_pending[data] = set()
        pending.add(future)
        future.add_done_callback(pending.discard)
    return future


def _no_instances(cls, message, error=RuntimeError):
    def __init__(self, *args, **kwargs):
        raise error(message)
    cls.__init__ = __init__
    return cls


def _make(cls, **attrs):
    obj = object.__new__(cls)
    for k, v in attrs.items():
        object.__setattr__(obj, k, v)
    return obj


class EnvironmentPolicy:
    """Decides which environment is current. Subclass it and pass an instance to register_policy."""

    def on_policy_registered(self, special_api):
        pass

    def on_policy_cleared(self):
        pass

    def get_current_environment(self):
        raise NotImplementedError

    def set_environment(self, environment):
        raise NotImplementedError

    def is_alive(self, environment):
        return _env_alive(environment) and _env_owner.get(environment) is _policy_api and _policy_api is not None


class EnvironmentPolicyAPI:
    """What a registered policy may do: create, wrap and destroy environments."""

    def __init__(self):
        raise RuntimeError("Cannot directly instantiate this class.")

    def _check(self):
        if _policy_api is not self:
            raise ValueError("The policy this API belongs to is not the registered one (was it unregistered?)")

    def wrap_environment(self, environment_data):
        self._check()
        if not isinstance(environment_data, EnvironmentData):
            raise TypeError("wrap_environment takes an EnvironmentData")
        return _make(Environment, env=_weakref.ref(environment_data), _id=_env_id(environment_data))

    def create_environment(self, flags=0):
        self._check()
        data = _env_create(flags)
        _env_owner[data] = self
        return data

    def set_logger(self, env, logger):
        self._check()
        core = _env_core(env)

        def handler(message_type, message):
            logger(int(message_type), message)

        core.add_log_handler(handler)

    def get_vapoursynth_api(self, version):
        self._check()
        return _ctypes.c_void_p(_vsapi_ptr(version) or None)

    def get_core_ptr(self, environment_data):
        self._check()
        return _ctypes.c_void_p(_env_core_ptr(environment_data))

    def destroy_environment(self, env):
        self._check()
        if not _env_alive(env):
            return
        # frames asked for with get_frame_async are delivered first
        pending = list(_env_pending.pop(env, ()))
        if pending:
            wait_futures(pending)
        callbacks = list(_env_on_destroy.pop(env, ()))
        try:
            for cb in callbacks:
                cb()
        finally:
            _env_locals.pop(env, None)
            _env_destroy(env)

    def unregister_policy(self):
        global _policy, _policy_api
        self._check()
        # the policy's environments end with it
        for data in [d for d, owner in list(_env_owner.items()) if owner is self]:
            self.destroy_environment(data)
        with _policy_lock:
            policy = _policy
            _policy = None
            _policy_api = None
        policy.on_policy_cleared()

    def __repr__(self):
        return f"<EnvironmentPolicyAPI bound to {self._policy!r}>"


def register_policy(policy):
    """Makes `policy` decide the current environment. Only one policy may be registered."""
    global _policy, _policy_api
    with _policy_lock:
        if _policy is not None:
            raise RuntimeError("A policy is registered already.")
        api = _make(EnvironmentPolicyAPI, _policy=policy)
        _policy = policy
        _policy_api = api
    try:
        policy.on_policy_registered(api)
    except BaseException:
        with _policy_lock:
            _policy = None
            _policy_api = None
        raise


def has_policy():
    return _policy is not None


def _ensure_policy():
    with _policy_lock:
        if _policy is None:
            register_policy(_make(StandaloneEnvironmentPolicy))
        return _policy


# Callbacks the core runs (filters' Python functions, frame callbacks) run in the environment they
# were made in, whichever thread runs them: a per-thread stack of such environments comes before
# the policy.
_inline = _threading.local()


def _inline_stack():
    stack = getattr(_inline, "stack", None)
    if stack is None:
        stack = _inline.stack = []
    return stack


def _bind_env(fn):
    """`fn`, to be called in the environment current now."""
    data = _current_data_or_none()
    if data is None:
        return fn
    ref = _weakref.ref(data)

    def in_environment(*args, **kwargs):
        d = ref()
        if d is None:
            return fn(*args, **kwargs)
        stack = _inline_stack()
        stack.append(d)
        try:
            return fn(*args, **kwargs)
        finally:
            stack.pop()

    return in_environment


def _current_data_or_none():
    stack = getattr(_inline, "stack", None)
    if stack and _env_alive(stack[-1]):
        return stack[-1]
    policy = _ensure_policy()
    data = policy.get_current_environment()
    if data is None or not _env_alive(data):
        return None
    return data


def _current_data():
    data = _current_data_or_none()
    if data is None:
        raise Error("No environment is active (use Environment.use() to activate one).")
    return data


class StandaloneEnvironmentPolicy:
    """The policy registered when none is: one environment for the whole process."""

    def on_policy_registered(self, special_api):
        self._api = special_api
        # held for the whole process: no warning when it is collected at exit
        self._env = _env_create(0, False)
        _env_owner[self._env] = special_api

    def on_policy_cleared(self):
        self._env = None

    def get_current_environment(self):
        return self._env

    def set_environment(self, environment):
        return self._env

    def is_alive(self, environment):
        return environment is self._env and _env_alive(environment)

    def _on_log_message(self, level, message):
        pass


_no_instances(StandaloneEnvironmentPolicy, "Cannot directly instantiate this class.")


class VSScriptEnvironmentPolicy:
    """The policy of script hosts: the current environment follows the calling context."""

    def on_policy_registered(self, special_api):
        self._api = special_api
        self._current = _contextvars.ContextVar("vsvk_environment", default=None)

    def on_policy_cleared(self):
        self._api = None

    def get_current_environment(self):
        ref = self._current.get()
        return None if ref is None else ref()

    def set_environment(self, environment):
        previous = self.get_current_environment()
        self._current.set(None if environment is None else _weakref.ref(environment))
        return previous

    def is_alive(self, environment):
        return _env_alive(environment) and _env_owner.get(environment) is self._api


_no_instances(VSScriptEnvironmentPolicy, "Cannot directly instantiate this class.")


class Environment:
    """A handle on an environment: whether it is alive, and use() to make it current."""

    def __init__(self):
        raise Error("Class cannot be instantiated directly")

    @property
    def alive(self):
        data = self.env()
        policy = _policy
        return data is not None and policy is not None and bool(policy.is_alive(data))

    @classmethod
    def is_single(cls):
        return isinstance(_ensure_policy(), StandaloneEnvironmentPolicy)

    @property
    def single(self):
        return self.is_single()

    @property
    def env_id(self):
        return -1 if self.single else self._id

    @property
    def active(self):
        data = self.env()
        return data is not None and _current_data_or_none() is data

    def copy(self):
        return _make(Environment, env=self.env, _id=self._id)

    def use(self):
        """A context manager that makes this environment current while it is entered."""
        data = self.env()
        if data is None:
            raise RuntimeError("The environment is gone.")
        return _make(_FastManager, _data=data, _previous=None, _stack=None)

    def __eq__(self, other):
        if not isinstance(other, Environment):
            return NotImplemented
        return self.env() is other.env()

    def __hash__(self):
        return id(self.env())

    def __repr__(self):
        if self.single:
            return "<Environment (default)>"
        return f"<Environment {self.env_id} ({'alive' if self.alive else 'dead'})>"


class _FastManager:
    """What Environment.use() returns. Entered and never left (as ManagedEnvironment.switch()
    does), the environment stays current: leaving happens in __exit__ only, never when the object
    is collected."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Cannot directly instantiate this class.")

    def __enter__(self):
        policy = _ensure_policy()
        # not set_environment's return value: a policy may return nothing
        self._previous = policy.get_current_environment()
        policy.set_environment(self._data)
        # inside a callback, the callback's environment would hide the policy's
        stack = getattr(_inline, "stack", None)
        if stack:
            stack.append(self._data)
            self._stack = stack
        return None

    def __exit__(self, *exc):
        if self._stack is not None:
            self._stack.pop()
            self._stack = None
        _ensure_policy().set_environment(self._previous)
        self._previous = None
        return False


def get_current_environment():
    data = _current_data_or_none()
    if data is None:
        # the message is what tools match on (vstools' tests do)
        raise RuntimeError("We are not running inside an environment.")
    return _make(Environment, env=_weakref.ref(data), _id=_env_id(data))


def register_on_destroy(callback):
    """Calls `callback()` when the current environment is destroyed."""
    data = _current_data_or_none()
    if data is None:
        raise RuntimeError("No environment is active.")
    _env_on_destroy.setdefault(data, []).append(callback)


def unregister_on_destroy(callback):
    data = _current_data_or_none()
    if data is None:
        raise RuntimeError("No environment is active.")
    _env_on_destroy.setdefault(data, []).remove(callback)


class Local:
    """Attributes whose values belong to the environment current when they are set."""

    def _values(self, create):
        data = _current_data()
        per_env = _env_locals.get(data)
        if per_env is None:
            per_env = _weakref.WeakKeyDictionary()
            if create:
                _env_locals[data] = per_env
        if create:
            return per_env.setdefault(self, {})
        return per_env.get(self, {})

    def __getattr__(self, key):
        try:
            return self._values(False)[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self._values(True)[key] = value

    def __delattr__(self, key):
        del self._values(True)[key]


class _CoreProxy:
    """`vsvk.core`: the current environment's core, whichever that is when it is used."""

    __slots__ = ()

    @property
    def core(self):
        return _env_core(_current_data())

    def __getattr__(self, name):
        return getattr(self.core, name)

    def __setattr__(self, name, value):
        setattr(self.core, name, value)

    def __delattr__(self, name):
        delattr(self.core, name)

    def __dir__(self):
        return sorted(set(dir(self.core)) | {"core"})

    def __repr__(self):
        return f"<vsvk._CoreProxy core={self.core!r}>"

    def __str__(self):
        return str(self.core)


core = _CoreProxy()


class PythonVSScriptLoggingBridge(_logging.Handler):
    """A logging handler that hands records on to the current core's log (critical records as
    critical messages marked fatal); with no environment active, to `parent`."""

    def __init__(self, parent, level=_logging.NOTSET):
        super().__init__(level)
        self._parent = parent

    def emit(self, record):
        try:
            message = self.format(record)
            if record.levelno >= _logging.CRITICAL:
                mt, message = MessageType.MESSAGE_TYPE_CRITICAL, "Fatal: " + message
            elif record.levelno >= _logging.ERROR:
                mt = MessageType.MESSAGE_TYPE_CRITICAL
            elif record.levelno >= _logging.WARNING:
                mt = MessageType.MESSAGE_TYPE_WARNING
            elif record.levelno >= _logging.INFO:
                mt = MessageType.MESSAGE_TYPE_INFORMATION
            else:
                mt = MessageType.MESSAGE_TYPE_DEBUG
            data = _current_data_or_none()
            if data is None:
                if self._parent is not None:
                    self._parent.handle(record)
                return
            _env_core(data).log_message(mt, message)
        except Exception:
            self.handleError(record)


if "core" not in __all__:
    __all__ = tuple(__all__) + ("core",)
