"""engine/schema.py: one checker for rule books and table profiles (DESIGN.md: a broken config
gets a clear message naming the file, the section and the key, never a crash)."""

import pytest

from engine.schema import ConfigError, Section, check_schema, one_of


class ProfileProblem(ValueError):
    pass


def test_typed_reads_return_the_value_and_numbers_as_float():
    section = Section({"port": 8080, "settle": 2, "on": True, "name": "x"}, "display")
    assert section.get("port", "int") == 8080
    assert section.get("settle", "positive") == 2.0 and isinstance(
        section.get("settle", "number"), float
    )
    assert section.get("on", "bool") is True
    assert section.get("name", "text") == "x"
    section.done()


@pytest.mark.parametrize(
    "value, kind, expected",
    [
        ("8080", "int", "expected an integer, got '8080'"),
        (True, "int", "expected an integer, got True"),
        (0, "positive", "expected a positive number, got 0"),
        (True, "number", "expected a number, got True"),
        ("  ", "text", "expected a non-empty string, got '  '"),
        (1, "bool", "expected true or false, got 1"),
        (3, "table", "expected a table, got 3"),
        ("dice", one_of("manual", "table"), "expected one of 'manual', 'table', got 'dice'"),
    ],
)
def test_a_mistyped_value_is_refused_naming_origin_section_and_key(value, kind, expected):
    section = Section({"key": value}, "buttons.E", origin="t.toml", error=ProfileProblem)
    with pytest.raises(ProfileProblem) as refused:
        section.get("key", kind)
    assert str(refused.value) == f"t.toml: [buttons.E] key: {expected}"


def test_a_caller_may_bring_its_own_kind():
    lanes = (lambda v: isinstance(v, list) and len(v) == 4, "a list of 4 pins")
    section = Section({"lanes": [1, 2, 3]}, "shuffler")
    with pytest.raises(ConfigError, match=r"^\[shuffler\] lanes: expected a list of 4 pins"):
        section.get("lanes", lanes)


def test_nested_sections_are_named_with_dots_and_keep_origin_and_error():
    top = Section({"readers": {"zones": {"baud": True}}}, "", origin="t.toml", error=ProfileProblem)
    zones = top.section("readers").section("zones")
    assert zones.name == "readers.zones"
    with pytest.raises(ProfileProblem, match=r"^t\.toml: \[readers\.zones\] baud: expected an"):
        zones.get("baud", "int")


def test_missing_and_unknown_keys_are_refused():
    section = Section({"host": "h", "colour": "red"}, "display")
    with pytest.raises(ConfigError, match=r"^\[display\] port: missing key$"):
        section.get("port", "int")
    section.get("host", "text")
    with pytest.raises(ConfigError, match=r"^\[display\] colour: unknown key \(known: host\)$"):
        section.done()


def test_at_the_top_level_the_keys_are_sections():
    top = Section({"table": {}, "lights": {}}, "", origin="t.toml")
    with pytest.raises(ConfigError, match=r"^t\.toml: \[gpio\]: missing section$"):
        top.section("gpio")
    top.section("table")
    with pytest.raises(
        ConfigError, match=r"^t\.toml: \[lights\]: unknown section \(known: table\)"
    ):
        top.done()
    assert str(top.error("", "no antenna")) == "t.toml: no antenna"


def test_check_schema_walks_a_schema_with_the_same_reads_and_words():
    schema = {"scoring": {"limit": "int", "mode": one_of("a", "b")}, "penalties": "table"}
    check_schema({"scoring": {"limit": 320, "mode": "a"}, "penalties": {}}, schema)
    broken = [
        ({"scoring": {"limit": 320, "mode": "a"}}, r"^\[penalties\]: missing section$"),
        ({"scoring": {"limit": "320", "mode": "a"}, "penalties": {}}, r"^\[scoring\] limit: exp"),
        (
            {"scoring": {"limit": 1, "mode": "a", "x": 1}, "penalties": {}},
            r"^\[scoring\] x: unknown key \(known: limit, mode\)$",
        ),
        ({"scoring": 5, "penalties": {}}, r"^\[scoring\]: expected a table, got 5$"),
    ]
    for data, message in broken:
        with pytest.raises(ConfigError, match=message):
            check_schema(data, schema)
    with pytest.raises(ConfigError, match=r"^\[penalties\.late\] rule: missing key$"):
        check_schema({}, {"rule": "text"}, "penalties.late")
