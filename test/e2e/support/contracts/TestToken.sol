// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// An ERC-20 for the local test chain: only its deployer (the minter) mints; decimals are chosen at deploy
/// time so that one artefact serves an 18-decimal token and a 6-decimal, stablecoin-like one.
contract TestToken is ERC20 {
    address public immutable minter;
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        minter = msg.sender;
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// A plain string reason (Error(string)), so that tests see how a node reports a classic revert; a transfer
    /// beyond the balance reverts with OpenZeppelin's custom error ERC20InsufficientBalance instead.
    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "TestToken: only the minter mints");
        _mint(to, amount);
    }
}
