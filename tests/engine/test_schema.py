"""engine/schema.py: one checker for rule books and table profiles (DESIGN.md: a broken config
gets a clear message naming the file, the section and the key, never a crash)."""

import pytest

from engine.schema import ConfigError, Section, check_schema, list_of, number, one_of, whole


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


@pytest.mark.parametrize(
    "value, kind, expected",
    [
        (0, whole(1, 40), "expected an integer from 1 to 40, got 0"),
        (17.0, whole(17, 18), "expected an integer from 17 to 18, got 17.0"),
        (True, whole(0, 1), "expected an integer from 0 to 1, got True"),
        (2**64, whole(0, 1000), "expected an integer from 0 to 1000, got 18446744073709551616"),
        (float("inf"), number(0.5, 30), "expected a number from 0.5 to 30, got inf"),
        (float("nan"), number(0, 600), "expected a number from 0 to 600, got nan"),
        (-15, number(1, 600), "expected a number from 1 to 600, got -15"),
        (0, number(0, 10, above=True), "expected a number over 0, up to 10, got 0"),
        (10**400, "number", "expected a number, got 100000000000000000...0000000000000000000"),
        (float("inf"), "positive", "expected a positive number, got inf"),
        ({"a": 1}, whole(0, 9), "expected an integer from 0 to 9, got {'a': 1}"),
    ],
    ids=["zero walls", "float", "bool", "huge", "inf", "nan", "negative", "0 not above 0"]
    + ["too large for a float", "inf not positive", "table"],
)
def test_a_number_out_of_its_range_is_refused_saying_the_range(value, kind, expected):
    """Issue 20 item 8: a number is read with its range, finite always (TOML has nan and
    inf), so zero walls or an endless claim window never reach the table."""
    section = Section({"key": value}, "wall", origin="t.toml")
    with pytest.raises(ConfigError) as refused:
        section.get("key", kind)
    assert str(refused.value) == f"t.toml: [wall] key: {expected}"


def test_a_number_in_its_range_is_read_as_its_kind():
    """An integer range gives the integer; a number range a float, as "number" does."""
    section = Section({"stacks": 17, "seconds": 15, "lanes": [5, 6, 7, 8]}, "wall")
    assert section.get("stacks", whole(17, 18)) == 17
    seconds = section.get("seconds", number(1, 600))
    assert seconds == 15.0 and isinstance(seconds, float)
    assert section.get("lanes", list_of(whole(0, 27), 4, 4, "pins")) == [5, 6, 7, 8]


@pytest.mark.parametrize("value", [[1, 2, 3], [1, 2, 3, 4, 5], [1, 2, 3, -4], [1, 2, 3, 2.5], 4])
def test_a_list_of_the_wrong_length_or_items_is_refused(value):
    """Issue 20 item 8: wrong shapes, a list too short or too long or with an item out of
    range, are refused like a wrong type."""
    section = Section({"lanes": value}, "shuffler")
    with pytest.raises(ConfigError) as refused:
        section.get("lanes", list_of(whole(0, 27), 4, 4, "pins (lanes E S W N)"))
    assert str(refused.value).startswith(
        "[shuffler] lanes: expected a list of 4 pins (lanes E S W N), each an integer from 0 to 27"
    )


def test_a_refusal_quotes_a_long_or_deep_value_shortly():
    """Issue 20 item 8: a value nested 400 deep or a long text is quoted in a few characters,
    so that the refusal stays one readable line."""
    deep: list = []
    for _ in range(400):
        deep = [deep]
    section = Section({"deep": deep, "long": "x" * 10_000}, "table")
    for key in ("deep", "long"):
        with pytest.raises(ConfigError) as refused:
            section.get(key, "int")
        assert len(str(refused.value)) < 100
