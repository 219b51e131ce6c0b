//! A colouring's values of each slot (a state of one copy, `colour`) in
//! four bytes a slot, where they took eight (#43: every slot of every
//! copy holds one, the whole run): the item a slot is in, as its number
//! among the items this worker holds slots of, and the component a
//! colouring found it in, as its root's id, the copy's tag being the
//! slot's own; and the names of the items, which tell their copy.

use std::collections::HashMap;

/// No item, colour or component.
pub(super) const NONE: u64 = u64::MAX;

/// Where an item's top byte says which copy of the states it belongs to:
/// `liveness` searches several edge sets at once, each on its own copy
/// (slot `copy * states + state`), so that their rounds are shared.
const COPY_SHIFT: u32 = 56;

/// The most copies of the states the items can tell apart.
pub(super) const MAX_COPIES: usize = 1 << (64 - COPY_SHIFT);

/// The first item of copy `copy` (its tag: the others add to it below
/// the top byte).
pub(super) fn copy_item(copy: usize) -> u64 {
    debug_assert!(copy < MAX_COPIES - 1, "NONE's top byte names no copy");
    (copy as u64) << COPY_SHIFT
}

/// The copy that `item` belongs to.
pub(super) fn copy_of(item: u64) -> usize {
    (item >> COPY_SHIFT) as usize
}

/// No item or component, in four bytes: never a state's id (`Packing`
/// keeps the ids below it) nor an item's number (checked).
const NONE32: u32 = u32::MAX;

/// The item of each slot: a number a slot, each item's name kept once.
pub(super) struct Items {
    of: Vec<u32>,
    names: Vec<u64>,
    numbers: HashMap<u64, u32>,
}

impl Items {
    /// `copies` copies of `states` states, each slot in its copy's first
    /// item.
    pub(super) fn new(copies: usize, states: usize) -> Items {
        let mut items = Items {
            of: Vec::with_capacity(copies * states),
            names: Vec::new(),
            numbers: HashMap::new(),
        };
        for k in 0..copies {
            let number = items.number(copy_item(k));
            items.of.extend(std::iter::repeat_n(number, states));
        }
        items
    }

    pub(super) fn len(&self) -> usize {
        self.of.len()
    }

    /// The item of slot `s` (`NONE`: none).
    pub(super) fn get(&self, s: usize) -> u64 {
        match self.of[s] {
            NONE32 => NONE,
            number => self.names[number as usize],
        }
    }

    /// Puts slot `s` in item `name` (`NONE`: in none).
    pub(super) fn set(&mut self, s: usize, name: u64) {
        self.of[s] = match name {
            NONE => NONE32,
            name => self.number(name),
        };
    }

    /// Takes the slots from `first` on out of every item.
    pub(super) fn clear_from(&mut self, first: usize) {
        self.of[first..].fill(NONE32);
    }

    fn number(&mut self, name: u64) -> u32 {
        let next = u32::try_from(self.names.len())
            .ok()
            .filter(|&n| n != NONE32);
        *self.numbers.entry(name).or_insert_with(|| {
            self.names.push(name);
            next.expect("fewer than 2^32 - 1 items a worker")
        })
    }

    /// Bytes held (the map's entries as their keys and values).
    pub(super) fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<(u64, u32)>();
        super::memory::held(&self.of)
            + super::memory::held(&self.names)
            + self.numbers.capacity() * entry
    }
}

/// The component of each slot that a colouring found, named by its
/// root's id under the slot's copy's tag (`NONE`: none found).
pub(super) struct Comps {
    of: Vec<u32>,
    /// States a copy.
    states: usize,
}

impl Comps {
    /// `slots` slots in no component, of `states` states a copy.
    pub(super) fn none(slots: usize, states: usize) -> Comps {
        Comps {
            of: vec![NONE32; slots],
            states,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.of.len()
    }

    /// The component of slot `s` (`NONE`: none).
    pub(super) fn get(&self, s: usize) -> u64 {
        match self.of[s] {
            NONE32 => NONE,
            root => copy_item(s / self.states) | u64::from(root),
        }
    }

    pub(super) fn is_found(&self, s: usize) -> bool {
        self.of[s] != NONE32
    }

    /// Puts slot `s` in the component whose root has id `root`.
    pub(super) fn set(&mut self, s: usize, root: u32) {
        debug_assert_ne!(root, NONE32, "an id");
        self.of[s] = root;
    }

    /// The slots in a component, with its name.
    pub(super) fn found(&self) -> impl Iterator<Item = (usize, u64)> + Clone + '_ {
        (0..self.of.len())
            .filter(|&s| self.is_found(s))
            .map(|s| (s, self.get(s)))
    }

    pub(super) fn bytes(&self) -> usize {
        super::memory::held(&self.of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_components_read_back_what_was_set() {
        let mut items = Items::new(2, 3);
        assert_eq!((0..6).map(|s| items.get(s)).collect::<Vec<_>>(), {
            let (a, b) = (copy_item(0), copy_item(1));
            vec![a, a, a, b, b, b]
        });
        let name = copy_item(1) | 7 << 32 | 5;
        items.set(4, name);
        items.set(1, NONE);
        assert_eq!(
            (items.get(4), items.get(1), items.get(3)),
            (name, NONE, copy_item(1))
        );
        items.clear_from(3);
        assert!((3..6).all(|s| items.get(s) == NONE));
        let mut comps = Comps::none(6, 3);
        comps.set(4, 9);
        assert_eq!((comps.get(4), comps.get(0)), (copy_item(1) | 9, NONE));
        assert_eq!(copy_of(comps.get(4)), 1);
        assert_eq!(
            comps.found().collect::<Vec<_>>(),
            vec![(4, copy_item(1) | 9)]
        );
    }
}
