// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// An ERC-721 for the local test chain: only its deployer (the minter) mints, with the token id chosen by
/// the caller.
contract TestNft is ERC721 {
    address public immutable minter;

    constructor(string memory name_, string memory symbol_) ERC721(name_, symbol_) {
        minter = msg.sender;
    }

    function mint(address to, uint256 tokenId) external {
        require(msg.sender == minter, "TestNft: only the minter mints");
        _mint(to, tokenId);
    }
}
