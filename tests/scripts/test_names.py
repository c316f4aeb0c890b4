# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the bracket scan of aprof_trms/names.py on operator names.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The brackets of operator names (operator<, operator<<, operator()) are
no template or parameter brackets: the qualified name, the collapsed
template arguments (plain_name, short_name) and the scope split
(names_routine) of such routines; the other names.py tests are in
test_select.py and test_plot.py."""
import os

SCRIPTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "scripts"))
from aprof_trms import names  # noqa: E402

LESS = ("bool std::operator< <int, std::allocator<int> >(std::vector<int, std::allocator<int> > "
        "const&, std::vector<int, std::allocator<int> > const&)")
SHIFT = ("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
         "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
         "char const*)")


def test_operator_brackets_are_no_template_brackets():
    assert names.qualified_name(LESS) == "std::operator< <int, std::allocator<int> >"
    assert names.plain_name(LESS) == "std::operator< <…>(…)"
    assert names.qualified_name(SHIFT) == "std::operator<< <std::char_traits<char> >"
    assert names.plain_name(SHIFT) == "std::operator<< <…>(…)"
    assert names.short_name(SHIFT, 40) == "…asic_ostream<…>& std::operator<< <…>(…)"


def test_operator_names_split_into_scopes():
    """'::' inside template arguments separates no scopes."""
    index = "std::vector<int, std::allocator<int> >::operator[](unsigned long)"
    assert names.names_routine("vector<int>::operator[]", index)
    assert names.names_routine("std::vector<int, std::allocator<int>>::operator[]", index)
    assert not names.names_routine("allocator<int> >::operator[]", index)
    assert not names.names_routine("map<int>::operator[]", index)
    assert names.names_routine("istream::operator>>", "std::istream::operator>>(int&)")
