"""Make the Fabric notebook's Eventstream snippet run unmodified against the emulator.

In a Fabric notebook::

    df_raw = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": item_id, "eventstream.datasourceid": datasource_id,
    }).load()
    df_raw.writeStream.foreachBatch(showDf).outputMode("append").start()

Fabric's runtime turns the two ids into a Kafka endpoint. Here,
``install(spark)`` does the same against the fabrictest emulator, for the kind
of session ``spark`` is:

* **JVM Spark** (classic pyspark): at ``load()`` the ids are resolved with
  ``GET /v1/eventstreams/{item}/sources/{ds}`` (bearer token) and become
  ``kafka.bootstrap.servers`` + ``subscribe`` (+ security options when the
  endpoint has them) on the real spark-sql-kafka source; every other option
  goes through untouched, so checkpointed streaming is Spark's own. Without the
  ``eventstream.*`` options, ``format("kafka")`` is not touched at all.
* **Sail** (a Spark Connect session; Sail has no Kafka source and refuses
  ``foreachBatch``): ``format("kafka")`` — with ``eventstream.*`` (read through
  the emulator's consume route) or with ``kafka.bootstrap.servers`` and
  ``subscribe`` / ``subscribePattern`` / ``assign`` (read with kafka-python) —
  is read in the driver into a DataFrame with Spark's exact Kafka schema, and
  ``writeStream…start()`` runs the sink (``foreachBatch`` included) in the
  driver on micro-batches until ``stop()`` (one micro-batch for
  ``availableNow`` / ``once``), announced on stderr (see
  :mod:`spark_agent.streaming` and :mod:`spark_agent.sail`).
  The ``kafka`` sink (``write`` / ``writeStream``) produces from the driver.

An unknown id fails at ``load()`` with the emulator's error code
(``ItemNotFound`` / ``DatasourceNotFound``), never as an empty stream; only one
of the two ids fails naming the other; an option the Sail path cannot honour
fails naming the option. Nothing here maps an Eventstream onto any other
source.
"""

from __future__ import annotations

import json
import sys
import weakref
from collections.abc import Callable
from typing import Any

from .emulator import EmulatorClient, FabricApiError, Source, TokenSource
from .eventhubs import is_eventhubs
from .eventhubs_load import connect_eventhubs_load, eventhubs_load
from .options import EVENTSTREAM_DATASOURCE_ID, EVENTSTREAM_ITEM_ID, KafkaOptionError, SourceOptions

__all__ = ["install", "uninstall", "installed", "Agent", "EventstreamError", "KafkaOptionError"]


class EventstreamError(FabricApiError):
    """An ``eventstream.itemid`` / ``eventstream.datasourceid`` pair the emulator
    could not resolve. ``error_code`` is the emulator's (``ItemNotFound``,
    ``DatasourceNotFound``, ``InvalidToken``, ``KafkaNotConfigured``, …)."""


# Options the driver-side path reads (lower case); anything else that is not
# kafka.* fails naming the option.
_SAIL_OPTIONS = {
    EVENTSTREAM_ITEM_ID, EVENTSTREAM_DATASOURCE_ID,
    "subscribe", "subscribepattern", "assign", "kafka.bootstrap.servers",
    "startingoffsets", "endingoffsets", "includeheaders", "failondataloss", "maxoffsetspertrigger",
    "kafkaconsumer.polltimeoutms",
    # hints and knobs with no effect on what a driver-side read returns
    "groupidprefix", "minpartitions", "fetchoffset.numretries", "fetchoffset.retryintervalms",
}
_SAIL_REFUSED_WHY = {
    "startingtimestamp": "timestamp-based offsets", "startingoffsetsbytimestamp": "timestamp-based offsets",
    "startingoffsetsbytimestampstrategy": "timestamp-based offsets", "endingtimestamp": "timestamp-based offsets",
    "endingoffsetsbytimestamp": "timestamp-based offsets",
    "minoffsetspertrigger": "trigger pacing", "maxtriggerdelay": "trigger pacing",
}


class Agent:
    """The adapter installed on one session: where the emulator is, how to reach it."""

    def __init__(self, session: Any, client: EmulatorClient, engine: str) -> None:
        self.session = session
        self.client = client
        self.engine = engine  # "jvm" (rewrite) or "driver" (Sail: driver-side read)

    def resolve(self, item_id: str, datasource_id: str) -> Source:
        """Resolve the Fabric pair; failures become :class:`EventstreamError`."""
        try:
            return self.client.resolve(item_id, datasource_id)
        except FabricApiError as e:
            raise EventstreamError(
                e.status, e.error_code,
                f"Eventstream source {EVENTSTREAM_ITEM_ID}={item_id} {EVENTSTREAM_DATASOURCE_ID}={datasource_id} "
                f"could not be resolved by the Fabric emulator at {self.client.url}: {e.message}",
                method=e.method, url=e.url, request_id=e.request_id, body=e.body) from None

    def rewrite(self, opts: SourceOptions) -> dict[str, str] | None:
        """JVM path: the options to hand the real Kafka source, or ``None`` when
        the read has no ``eventstream.*`` options (left untouched)."""
        ids = opts.eventstream_ids()
        if ids is None:
            return None
        src = self.resolve(*ids)
        out = opts.without(EVENTSTREAM_ITEM_ID, EVENTSTREAM_DATASOURCE_ID)
        # The cluster and topic are the resolve's; a kafka.* security option
        # the notebook sets itself (its own sasl.jaas.config when the emulator
        # does not share credentials) wins over the resolve's.
        own = {k.lower() for k in out}
        for key, value in src.kafka_options().items():
            if key in ("kafka.bootstrap.servers", "subscribe") or key.lower() not in own:
                out[key] = value
        _note(f"eventstream {ids[0]}/{ids[1]} -> kafka.bootstrap.servers={src.bootstrap_servers} "
              f"subscribe={src.topic}")
        return out

    # -- the driver-side (Sail) read ---------------------------------------------
    def kafka_plan(self, opts: SourceOptions, *, streaming: bool, user_schema: str | None) -> Any:
        """A :class:`spark_agent.plan.KafkaSourcePlan` for one ``format("kafka")`` read."""
        from . import driver_consume
        from .kafka_schema import record_from_emulator
        from .microbatch import ReadResult
        from .options import offsets_json, parse_offsets
        from .plan import KafkaSourcePlan

        if user_schema:
            raise KafkaOptionError("schema", "Kafka source has a fixed schema and cannot be set with a custom one")
        for k, _ in opts.items():
            lk = k.lower()
            if lk in _SAIL_REFUSED_WHY:
                raise KafkaOptionError(k, f"option '{k}' ({_SAIL_REFUSED_WHY[lk]}) is not supported by the "
                                          f"driver-side Kafka read on Sail; use startingOffsets/endingOffsets")
            if lk not in _SAIL_OPTIONS and not lk.startswith("kafka."):
                raise KafkaOptionError(k, f"option '{k}' is not a Kafka source option the driver-side read on "
                                          f"Sail knows")
        include_headers = opts.bool("includeHeaders", False)
        fail_on_data_loss = opts.bool("failOnDataLoss", True)
        params = opts.kafka_params()
        ids = opts.eventstream_ids()
        start_raw = opts.get("startingOffsets")
        if streaming and start_raw is None:
            start_raw = "latest"  # Spark's default for a stream
        max_per_trigger = opts.get("maxOffsetsPerTrigger")
        if max_per_trigger is not None and (not max_per_trigger.isdigit() or int(max_per_trigger) < 1):
            raise KafkaOptionError("maxOffsetsPerTrigger", f"option 'maxOffsetsPerTrigger' must be a positive "
                                                           f"integer, got {max_per_trigger!r}")

        if ids is not None:
            item, ds = ids
            src = self.resolve(item, ds)  # unknown ids fail here, at load()
            if streaming:
                opts.check_stream_has_no_end()
                end_raw = None
            else:
                end_raw = opts.get("endingOffsets")
                if (start_raw or "").strip().lower() == "latest":
                    raise KafkaOptionError("startingOffsets", "starting offset can't be latest for batch queries "
                                                              "on Kafka")
                if (end_raw or "").strip().lower() == "earliest":
                    raise KafkaOptionError("endingOffsets", "ending offset can't be earliest for batch queries on "
                                                            "Kafka")
            client = self.client

            def read(override: dict[str, dict[int, int]] | None) -> ReadResult:
                start = offsets_json(override) if override else start_raw
                records, end = [], {}
                for page in client.consume_pages(item, ds, starting_offsets=start, ending_offsets=end_raw):
                    records.extend(record_from_emulator(r) for r in page.get("value") or ())
                    end = {t: {int(p): int(o) for p, o in ps.items()} for t, ps in (page.get("nextOffsets") or {}).items()}
                return ReadResult(records=records, start=override or (start or "earliest"), end=end)

            desc = f"eventstream {item}/{ds} (topic {src.topic}, via the emulator's consume route)"
        else:
            bootstrap = opts.bootstrap_servers()
            kind, value = opts.subscription()
            driver_consume.consumer_config(params)  # unknown kafka.* options fail here, at load()
            from .kerberos import driver_java_options, uses_gssapi

            java_options = driver_java_options(self.session) if uses_gssapi(params) else None
            if streaming:
                opts.offsets(streaming=True)  # refuses ending offsets like Spark
                start_spec, end_spec = parse_offsets(start_raw, "startingOffsets"), "latest"
            else:
                start_spec, end_spec = opts.offsets(streaming=False)
            poll_ms = int(opts.get("kafkaConsumer.pollTimeoutMs") or 120_000)

            def read(override: dict[str, dict[int, int]] | None) -> ReadResult:
                res = driver_consume.consume(
                    params, kind, value, override or start_spec, end_spec,
                    fail_on_data_loss=fail_on_data_loss, poll_timeout_ms=poll_ms,
                    partitions_default_missing="earliest" if override else None, java_options=java_options)
                return ReadResult(records=res.records, start=res.start, end=res.end)

            desc = f"kafka {kind}={value} at {bootstrap}"

        plan = KafkaSourcePlan(self.session, read, include_headers=include_headers, streaming=streaming,
                               description=desc)
        if streaming and max_per_trigger:
            plan.max_offsets_per_trigger = int(max_per_trigger)
        return plan


def _note(msg: str) -> None:
    print(f"spark_agent: {msg}", file=sys.stderr, flush=True)


# -- installation ------------------------------------------------------------------

_AGENTS: weakref.WeakKeyDictionary[Any, Agent] = weakref.WeakKeyDictionary()
_ORIGINALS: dict[tuple[type, str], Callable[..., Any]] = {}


def _is_connect(spark: Any) -> bool:
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except Exception:  # Connect's dependencies (grpc, pandas, pyarrow) missing
        return False
    return isinstance(spark, ConnectSession)


def install(spark: Any, emulator_url: str | None = None, token: TokenSource = None, *,
            engine: str = "auto") -> Agent:
    """Install the adapter on ``spark``; returns the :class:`Agent`.

    ``emulator_url`` defaults to ``$FABRIC_EMULATOR_URL`` (else
    ``http://127.0.0.1:5080``); ``token`` (a string or a callable) to the
    notebook's identity from the environment: the ``AZURE_*`` service
    principal through azure-identity, else ``$FABRIC_EMULATOR_TOKEN``, else
    the default principal's token minted by ``POST /_emulator/token``
    (:mod:`spark_agent.identity`).
    ``engine``: ``auto`` (classic session → ``jvm``; Spark Connect session →
    ``sail``), ``jvm`` (rewrite to the real Kafka source; also right for a
    Spark Connect server backed by JVM Spark with the Kafka jars) or ``sail``
    (driver-side read). Installing again replaces the previous settings.
    """
    connect = _is_connect(spark)
    if engine == "auto":
        engine = "driver" if connect else "jvm"
    elif engine == "sail":
        engine = "driver"
    if engine not in ("jvm", "driver"):
        raise ValueError(f"engine must be auto, jvm or sail, got {engine!r}")
    if engine == "driver" and not connect:
        raise ValueError("engine='sail' needs a Spark Connect session (SparkSession.builder.remote(...))")
    if connect:
        _patch_connect()
    else:
        _patch_classic()
    agent = Agent(spark, EmulatorClient(emulator_url, token), engine)
    _AGENTS[spark] = agent
    return agent


def uninstall(spark: Any) -> None:
    """Remove the adapter from ``spark`` (its readers and writers behave as stock again)."""
    _AGENTS.pop(spark, None)


def installed(spark: Any) -> Agent | None:
    """The :class:`Agent` installed on ``spark``, if any."""
    try:
        return _AGENTS.get(spark)
    except TypeError:
        return None


def _patch(cls: type, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    if (cls, name) in _ORIGINALS:
        return
    orig = getattr(cls, name)
    _ORIGINALS[(cls, name)] = orig
    wrapped = make(orig)
    wrapped.__name__ = orig.__name__
    wrapped.__doc__ = orig.__doc__
    wrapped.__wrapped__ = orig  # type: ignore[attr-defined]
    setattr(cls, name, wrapped)


# -- classic (JVM) pyspark: readers keep their settings on the JVM side, so the
# wrap records them in Python as they are set and holds the eventstream.*
# options back from the JVM reader.

def _patch_classic() -> None:
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.streaming.readwriter import DataStreamReader

    for cls in (DataFrameReader, DataStreamReader):
        _patch(cls, "format", _classic_format)
        _patch(cls, "option", _classic_option)
        _patch(cls, "options", _classic_options)
        _patch(cls, "load", _classic_load)


def _state(reader: Any) -> dict[str, Any]:
    st = reader.__dict__.get("_fabrictest")
    if st is None:
        st = reader.__dict__["_fabrictest"] = {"format": None, "options": {}, "held": {}}
    return st


def _classic_format(orig: Callable[..., Any]) -> Callable[..., Any]:
    def format(self: Any, source: str) -> Any:
        _state(self)["format"] = source
        return orig(self, source)
    return format


def _classic_option(orig: Callable[..., Any]) -> Callable[..., Any]:
    def option(self: Any, key: str, value: Any) -> Any:
        st = _state(self)
        if (key.lower().startswith("eventstream.") or is_eventhubs(st["format"])) and \
                installed(self._spark) is not None:
            st["held"][key] = value
            st["options"][key] = value
            return self
        st["options"][key] = value
        return orig(self, key, value)
    return option


def _classic_options(orig: Callable[..., Any]) -> Callable[..., Any]:
    def options(self: Any, **opts: Any) -> Any:
        for k, v in opts.items():
            self.option(k, v)
        return self
    return options


def _classic_load(orig: Callable[..., Any]) -> Callable[..., Any]:
    def load(self: Any, path: Any = None, format: str | None = None, schema: Any = None, **options: Any) -> Any:
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        if options:
            self.options(**options)
        st = _state(self)
        agent = installed(self._spark)
        held = st["held"]
        if agent is not None and is_eventhubs(st["format"]):
            return eventhubs_load(self, orig, agent, st, _ORIGINALS[(_base(self), "format")],
                                  _ORIGINALS[(_base(self), "option")], path)
        if agent is not None and held:
            option = _ORIGINALS[(_base(self), "option")]
            if (st["format"] or "").lower() == "kafka":
                rewritten = agent.rewrite(SourceOptions(st["options"]))
                assert rewritten is not None
                for k, v in rewritten.items():
                    if k in st["options"] and k not in held and st["options"][k] == v:
                        continue  # already on the JVM reader
                    option(self, k, v)
            else:
                for k, v in held.items():
                    option(self, k, v)
            held.clear()
        return orig(self, path) if path is not None else orig(self)
    return load


def _base(reader: Any) -> type:
    for cls in type(reader).__mro__:
        if (cls, "option") in _ORIGINALS:
            return cls
    raise RuntimeError("spark_agent: reader class not patched")


# -- Spark Connect (Sail): readers keep their settings in Python (_format,
# _options, _schema); the driver-side read replaces the DataSource plan.

def _patch_connect() -> None:
    from pyspark.sql.connect.readwriter import DataFrameReader, DataFrameWriter
    from pyspark.sql.connect.streaming.readwriter import DataStreamReader, DataStreamWriter

    _patch(DataFrameReader, "load", _connect_load(streaming=False))
    _patch(DataStreamReader, "load", _connect_load(streaming=True))
    _patch(DataStreamWriter, "foreachBatch", _connect_foreach_batch)
    _patch(DataStreamWriter, "foreach", _connect_foreach)
    _patch(DataStreamWriter, "start", _connect_start)
    _patch(DataStreamWriter, "toTable", _connect_to_table)
    _patch(DataFrameWriter, "save", _connect_save)


def _connect_load(streaming: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def load(self: Any, path: Any = None, format: str | None = None, schema: Any = None,
                 **options: Any) -> Any:
            agent = installed(self._client)
            fmt = format if format is not None else self._format
            if agent is not None and is_eventhubs(fmt):
                return connect_eventhubs_load(self, agent, streaming, path, options)
            if agent is None or (fmt or "").lower() != "kafka":
                return orig(self, path, format, schema, **options)
            if format is not None:
                self.format(format)
            if schema is not None:
                self.schema(schema)
            self.options(**options)
            opts = SourceOptions(self._options)
            if agent.engine == "jvm":
                rewritten = agent.rewrite(opts)
                if rewritten is not None:
                    self._options = dict(rewritten)
                return orig(self, path)
            from pyspark.sql.connect.dataframe import DataFrame

            if path is not None:
                raise KafkaOptionError("path", "Kafka source takes no path")
            plan = agent.kafka_plan(opts, streaming=streaming, user_schema=self._schema or None)
            return DataFrame.withPlan(plan, self._client)
        return load
    return make


def _driver_writer(writer: Any) -> bool:
    agent = installed(writer._session)
    if agent is None or agent.engine != "driver":
        return False
    from .plan import kafka_leaves

    return bool(kafka_leaves(writer._write_stream._child))


def _connect_foreach_batch(orig: Callable[..., Any]) -> Callable[..., Any]:
    def foreachBatch(self: Any, func: Callable[[Any, int], None]) -> Any:
        if _driver_writer(self):
            self._fabrictest_foreach_batch = func
            return self
        return orig(self, func)
    return foreachBatch


def _connect_foreach(orig: Callable[..., Any]) -> Callable[..., Any]:
    def foreach(self: Any, f: Any) -> Any:
        if _driver_writer(self):
            self._fabrictest_foreach = f
            return self
        return orig(self, f)
    return foreach


def _apply_start_args(w: Any, format: str | None, outputMode: str | None, partitionBy: Any,
                      queryName: str | None, options: dict[str, Any]) -> None:
    w.options(**options)
    if outputMode is not None:
        w.outputMode(outputMode)
    if partitionBy is not None:
        w.partitionBy(partitionBy)
    if format is not None:
        w.format(format)
    if queryName is not None:
        w.queryName(queryName)


def _connect_start(orig: Callable[..., Any]) -> Callable[..., Any]:
    def start(self: Any, path: str | None = None, format: str | None = None, outputMode: str | None = None,
              partitionBy: Any = None, queryName: str | None = None, **options: Any) -> Any:
        if not _driver_writer(self):
            return orig(self, path, format, outputMode, partitionBy, queryName, **options)
        from .sail import run_micro_batch

        _apply_start_args(self, format, outputMode, partitionBy, queryName, options)
        return run_micro_batch(self, path=path)
    return start


def _connect_to_table(orig: Callable[..., Any]) -> Callable[..., Any]:
    def toTable(self: Any, tableName: str, format: str | None = None, outputMode: str | None = None,
                partitionBy: Any = None, queryName: str | None = None, **options: Any) -> Any:
        if not _driver_writer(self):
            return orig(self, tableName, format, outputMode, partitionBy, queryName, **options)
        from .sail import run_micro_batch

        _apply_start_args(self, format, outputMode, partitionBy, queryName, options)
        return run_micro_batch(self, table=tableName)
    return toTable


def _connect_save(orig: Callable[..., Any]) -> Callable[..., Any]:
    def save(self: Any, path: str | None = None, format: str | None = None, mode: str | None = None,
             partitionBy: Any = None, **options: Any) -> None:
        agent = installed(self._spark)
        fmt = format if format is not None else self._write.source
        if agent is None or agent.engine != "driver" or (fmt or "").lower() != "kafka":
            return orig(self, path, format, mode, partitionBy, **options)
        from pyspark.sql.connect.dataframe import DataFrame

        from .sink import write_kafka

        if mode is not None:
            self.mode(mode)
        m = (self._write.mode or "error").lower()
        if m in ("overwrite", "ignore"):
            raise KafkaOptionError("mode", f"Save mode {m} not allowed for Kafka. Allowed save modes are Append and "
                                           f"ErrorIfExists (default).")
        opts = {**dict(self._write.options), **{k: str(v) for k, v in options.items()}}
        n = write_kafka(DataFrame.withPlan(self._df, self._spark), opts)
        _note(f"Sail has no Kafka sink; produced {n} records from the driver")
    return save


def describe(spark: Any) -> str:
    """One line saying what is installed on ``spark`` (for logs)."""
    a = installed(spark)
    return "not installed" if a is None else json.dumps({"engine": a.engine, "emulator": a.client.url})
