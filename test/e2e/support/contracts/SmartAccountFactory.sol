// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {SmartAccount} from "./SmartAccount.sol";

/// Deploys SmartAccounts at CREATE2 addresses known in advance, callable by anyone: what a counterfactual
/// (ERC-6492) signature needs, since its verifier deploys the account in the call that checks it.
/// (The ERC-4337 SimpleAccountFactory, release 0.8, cannot serve there: its createAccount only answers the
/// EntryPoint's SenderCreator.)
contract SmartAccountFactory {
    event AccountCreated(address indexed account, address indexed owner, bytes32 salt);

    /// The account's address, whether it is deployed yet or not; creating it again returns the same one.
    function createAccount(address owner, bytes32 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length > 0) return account;
        new SmartAccount{salt: salt}(owner);
        emit AccountCreated(account, owner, salt);
    }

    function getAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(SmartAccount).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}
