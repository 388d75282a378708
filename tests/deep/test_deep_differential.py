"""Thousands of larger random protocols against the reference (run with `pytest -m deep`)."""

import pytest
from hypothesis import given, settings
from oracles.strategies import specs
from oracles.strategies_symmetric import symmetric_specs
from oracles.strategies_blocks import block_specs
from oracles.strategies_data import data_por_specs, data_specs
from oracles.strategies_data_symmetric import symmetric_data_specs
from oracles.strategies_gated import gated_specs
from oracles.strategies_values import value_specs
from oracles.agreement import (DEEP, DEEP_DATA, agree, blocks_are_real, data_agrees, data_reduced_agrees,
                               compile_text, same_stubborn_sets,
                               reduced_agrees, symmetric_agrees, symmetry_is_real)


@pytest.mark.deep
@DEEP
@given(specs(max_visible=10))
def test_deep_checker_agrees_with_reference(text):
    agree(text, max_states=20_000)


@pytest.mark.deep
@DEEP
@given(specs(max_visible=10))
def test_deep_atomic_tensor_waits_agree_with_reference(text):
    agree(text, atomic_waits=True, max_states=20_000)


@pytest.mark.deep
@DEEP_DATA
@given(data_specs())
def test_deep_data_race_agrees_with_brute_force(text):
    data_agrees(text, "pto")


@pytest.mark.deep
@DEEP
@given(specs(max_visible=10))
def test_deep_reduced_search_judges_like_the_reference(text):
    reduced_agrees(text, max_states=20_000)


@pytest.mark.deep
@settings(DEEP, max_examples=1000)
@given(specs(max_visible=10, counters=True))
def test_deep_reduced_search_on_counters_of_both_signs(text):
    reduced_agrees(text, max_states=20_000)


@pytest.mark.deep
@settings(DEEP, max_examples=1500)
@given(gated_specs())
def test_deep_reduced_search_on_gated_readers_beside_overwrites(text):
    reduced_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=2000)
@given(value_specs())
def test_deep_reduced_search_on_steps_that_depend_on_the_values_they_meet(text):
    reduced_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=1000, derandomize=False, database=None)
@given(symmetric_specs())
def test_deep_claimed_rotations_are_real(text):
    symmetry_is_real(text)


@pytest.mark.deep
@settings(DEEP, max_examples=600, derandomize=False, database=None)
@given(symmetric_specs())
def test_deep_symmetric_search_judges_like_the_reference(text):
    symmetric_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=1000, derandomize=False, database=None)
@given(block_specs())
def test_deep_claimed_block_permutations_are_real(text):
    blocks_are_real(text)


@pytest.mark.deep
@settings(DEEP, max_examples=600, derandomize=False, database=None)
@given(block_specs())
def test_deep_block_symmetric_search_judges_like_the_reference(text):
    symmetric_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=2000, derandomize=False, database=None)
@given(data_por_specs(max_statements=4))
def test_deep_reduced_data_search_judges_like_the_plain_search(text):
    data_reduced_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=1000, derandomize=False, database=None)
@given(data_specs(max_statements=4))
def test_deep_reduced_data_races_like_the_plain_search(text):
    data_reduced_agrees(text)


@pytest.mark.deep
@settings(DEEP, max_examples=800, derandomize=False, database=None)
@given(symmetric_data_specs())
def test_deep_claimed_rotations_of_data_rings_are_real(text):
    assert symmetry_is_real(text) is not None
    same_stubborn_sets(compile_text(text))


@pytest.mark.deep
@settings(DEEP, max_examples=400, derandomize=False, database=None)
@given(symmetric_data_specs())
def test_deep_symmetric_data_search_judges_like_the_plain_search(text):
    data_reduced_agrees(text, symmetric=True)
